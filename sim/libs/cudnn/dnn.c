/* The last error of the calling thread and the element sizes (dnn.h). */
#include "dnn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static __thread char last[256];

cudnnStatus_t simdnn_fail(cudnnStatus_t s, const char *text)
{
    snprintf(last, sizeof last, "%s", text);
    return s;
}

cudnnStatus_t simdnn_failf(cudnnStatus_t s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last, sizeof last, fmt, ap);
    va_end(ap);
    return s;
}

/* cuDNN 9.26 on the CPU: after a successful call the string is empty; the
 * message of a failure stays until it is read (observed with
 * cudnnGetLastErrorString after a failed cudnnBackendFinalize). */
void simdnn_last_error(char *buf, size_t n)
{
    if (!buf || n == 0)
        return;
    snprintf(buf, n, "%s", last);
    last[0] = '\0';
}

size_t simdnn_dtype_size(cudnnDataType_t t)
{
    switch (t) {
    case CUDNN_DATA_DOUBLE: case CUDNN_DATA_INT64: case CUDNN_DATA_COMPLEX_FP32: return 8;
    case CUDNN_DATA_COMPLEX_FP64: return 16;
    case CUDNN_DATA_FLOAT: case CUDNN_DATA_INT32: case CUDNN_DATA_UINT32: case CUDNN_DATA_INT8x4:
    case CUDNN_DATA_UINT8x4: return 4;
    case CUDNN_DATA_HALF: case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8x32: return 32;
    case CUDNN_DATA_INT8: case CUDNN_DATA_UINT8: case CUDNN_DATA_BOOLEAN: case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2: case CUDNN_DATA_FAST_FLOAT_FOR_FP8: case CUDNN_DATA_FP8_E8M0:
    case CUDNN_DATA_FP4_E2M1: case CUDNN_DATA_INT4: case CUDNN_DATA_UINT4: return 1;
    default: return 0;
    }
}
