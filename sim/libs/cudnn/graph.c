/* libcudnn_graph.so.9 of the sim (sim/libs/cudnn/README.md): the handle,
 * versions and error strings, and the backend graph API (cudnn_graph.h):
 * descriptors, attributes, finalize, heuristics, engines, execution plans,
 * variant packs and execute.
 *
 * What a descriptor accepts, what finalize checks and what the getters
 * answer follow cuDNN 9.26 (nvidia-cudnn-cu13 9.26.0.51) run on the CPU,
 * where its descriptor API works without a GPU; each rule says what was
 * observed, and sim/tests/dnn_diff.sh drives the same sequence through the
 * real library and this one.  What needs a GPU (engine configurations,
 * plans, execute) follows cuDNN's documentation.  The sim has one engine
 * (global index 0) for an operation graph of one convolution (forward,
 * backward data, backward filter): its heuristics return it, it needs no
 * workspace and has no knobs or notes, and execute launches conv.cu's
 * kernel on the handle's stream, whose host twin computes (twins.c). */
#include "dnn.h"
#include "conv_hd.h"
#include "conv_attrs.h"

#include <cuda_runtime_api.h>
#include <library_types.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIB "libcudnn_graph.so.9"

extern const unsigned char conv_image[] SIMLIB_HIDDEN;
static struct simlib_image image = SIMLIB_IMAGE_INIT(conv_image, LIB);

/* ------------------------------------------------------------ validity */
/* Handles and descriptors the program holds are looked up before use, so a
 * stale or foreign pointer is refused, not followed (the real library
 * follows it).  One open-addressed set of pointers, under a lock. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const void **live;
static size_t live_cap, live_n;

static size_t live_slot(const void *p, size_t cap)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void live_put_locked(const void *p)
{
    size_t i = live_slot(p, live_cap);
    while (live[i])
        i = (i + 1) & (live_cap - 1);
    live[i] = p;
    live_n++;
}

static int live_add(const void *p)
{
    pthread_mutex_lock(&live_lock);
    if ((live_n + 1) * 2 > live_cap) {
        size_t cap = live_cap ? live_cap * 2 : 256;
        const void **old = live, **nl = calloc(cap, sizeof *nl);
        if (!nl) {
            pthread_mutex_unlock(&live_lock);
            return -1;
        }
        size_t oldcap = live_cap;
        live = nl;
        live_cap = cap;
        live_n = 0;
        for (size_t i = 0; i < oldcap; i++)
            if (old[i] && old[i] != (const void *)1)
                live_put_locked(old[i]);
        free(old);
    }
    live_put_locked(p);
    pthread_mutex_unlock(&live_lock);
    return 0;
}

static int live_find_locked(const void *p, size_t *at)
{
    if (!p || !live_cap)
        return 0;
    for (size_t i = live_slot(p, live_cap), k = 0; k < live_cap && live[i]; i = (i + 1) & (live_cap - 1), k++)
        if (live[i] == p) {
            if (at)
                *at = i;
            return 1;
        }
    return 0;
}

static int live_has(const void *p)
{
    pthread_mutex_lock(&live_lock);
    int r = live_find_locked(p, NULL);
    pthread_mutex_unlock(&live_lock);
    return r;
}

/* Removes p; the set is rebuilt without tombstones when it is half empty. */
static int live_del(const void *p)
{
    size_t at;
    pthread_mutex_lock(&live_lock);
    int r = live_find_locked(p, &at);
    if (r) {
        /* backward-shift deletion keeps probe chains whole */
        size_t i = at, j = at;
        for (;;) {
            j = (j + 1) & (live_cap - 1);
            if (!live[j])
                break;
            size_t k = live_slot(live[j], live_cap);
            if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
                live[i] = live[j];
                i = j;
            }
        }
        live[i] = NULL;
        live_n--;
    }
    pthread_mutex_unlock(&live_lock);
    return r;
}

/* ------------------------------------------------------------ handle */
#define HANDLE_MAGIC 0x53494d444e4e4831ull      /* "SIMDNNH1" */
struct cudnnContext {
    uint64_t magic;
    int device;
    CUcontext ctx;                  /* the device's primary context */
    cudaStream_t stream;
};

static int handle_ok(cudnnHandle_t h) { return h && live_has(h) && h->magic == HANDLE_MAGIC; }

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t *handle)
{
    /* 9.26: "handle output pointer is NULL", CUDNN_STATUS_BAD_PARAM */
    if (!handle)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnCreate: handle output pointer is NULL");
    if (simlib_driver(LIB) != 0)
        return simdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no CUDA driver");
    /* the device current at creation (cudnnCreate's documentation: the
     * handle is tied to it); none current: device 0, as NVIDIA's runtime
     * makes its primary context current on first use */
    int dev = simlib_current_device();
    CUcontext ctx = NULL;
    if (dev < 0 || simlib_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
        return simdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "cudnnCreate: no CUDA device");
    struct cudnnContext *c = calloc(1, sizeof *c);
    if (!c || live_add(c) != 0) {
        free(c);
        return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "cudnnCreate: out of memory");
    }
    c->magic = HANDLE_MAGIC;
    c->device = dev;
    c->ctx = ctx;
    *handle = c;
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle)
{
    if (!handle)
        return CUDNN_STATUS_SUCCESS;            /* 9.26: destroying NULL succeeds */
    if (!handle_ok(handle))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnDestroy: not a handle");
    handle->magic = 0;
    live_del(handle);
    free(handle);
    return CUDNN_STATUS_SUCCESS;
}

/* The device of a stream's context (NULL: none, the legacy stream of the
 * current context). */
static int stream_device(cudaStream_t s, int *dev)
{
    CUcontext ctx;
    CUdevice d;
    CUcontext cur = NULL;
    if (simlib_drv.cuStreamGetCtx((CUstream)s, &ctx) != CUDA_SUCCESS)
        return -1;
    if (simlib_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS)
        return -1;
    if (ctx != cur && simlib_drv.cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return -1;
    CUresult r = simlib_drv.cuCtxGetDevice(&d);
    if (ctx != cur)
        simlib_drv.cuCtxSetCurrent(cur);
    if (r != CUDA_SUCCESS)
        return -1;
    *dev = (int)d;
    return 0;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream: handle is NULL or not a handle");
    int dev = handle->device;
    if (streamId && stream_device(streamId, &dev) != 0)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnSetStream: not a stream");
    /* cudnnSetStream's documentation: CUDNN_STATUS_MAPPING_ERROR (the
     * deprecated name of CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
     * for a mismatch between the stream and the handle's context */
    if (dev != handle->device)
        return simdnn_failf(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED,
                            "cudnnSetStream: the stream is on device %d, the handle on device %d", dev,
                            handle->device);
    handle->stream = streamId;
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: handle is NULL");
    if (!streamId)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetStream: streamId is NULL");
    *streamId = handle->stream;
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ versions, errors */
SIMLIB_EXPORT size_t CUDNNWINAPI cudnnGetVersion(void) { return SIMDNN_VERSION; }

/* the toolkit's runtime version: the sim's runtime is the one loaded */
SIMLIB_EXPORT size_t CUDNNWINAPI cudnnGetCudartVersion(void) { return CUDART_VERSION; }

SIMLIB_EXPORT size_t CUDNNWINAPI cudnnGetMaxDeviceVersion(void) { return CUDNN_MAX_DEVICE_VERSION; }

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "cudnnGetProperty: value == NULL");
    switch (type) {
    case MAJOR_VERSION: *value = SIMDNN_MAJOR; return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION: *value = SIMDNN_MINOR; return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = SIMDNN_PATCH; return CUDNN_STATUS_SUCCESS;
    default: return CUDNN_STATUS_BAD_PARAM;     /* 9.26: no message */
    }
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnGraphVersionCheck(void) { return CUDNN_STATUS_SUCCESS; }

/* The enumerators' names (cudnn_graph.h); 9.26 answers
 * "CUDNN_UNKNOWN_STATUS" for any other value. */
SIMLIB_EXPORT const char *CUDNNWINAPI cudnnGetErrorString(cudnnStatus_t status)
{
    switch ((int)status) {
#define NAME(s) case s: return #s;
    NAME(CUDNN_STATUS_SUCCESS)
    NAME(CUDNN_STATUS_NOT_INITIALIZED)
    NAME(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    NAME(CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH)
    NAME(CUDNN_STATUS_DEPRECATED)
    NAME(CUDNN_STATUS_LICENSE_ERROR)
    NAME(CUDNN_STATUS_RUNTIME_IN_PROGRESS)
    NAME(CUDNN_STATUS_RUNTIME_FP_OVERFLOW)
    NAME(CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    NAME(CUDNN_STATUS_BAD_PARAM)
    case 2001: return "CUDNN_STATUS_INVALID_VALUE";
    NAME(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    NAME(CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER)
    NAME(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED)
    NAME(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    NAME(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    NAME(CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH)
    NAME(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    NAME(CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES)
    NAME(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE)
    NAME(CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH)
    NAME(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE)
    NAME(CUDNN_STATUS_NOT_SUPPORTED)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_PADDING)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
    NAME(CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE)
    NAME(CUDNN_STATUS_INTERNAL_ERROR)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM)
    NAME(CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED)
    NAME(CUDNN_STATUS_EXECUTION_FAILED)
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER)
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUBLAS)
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
    NAME(CUDNN_STATUS_EXECUTION_FAILED_CURAND)
#undef NAME
    default: return "CUDNN_UNKNOWN_STATUS";
    }
}

SIMLIB_EXPORT void CUDNNWINAPI cudnnGetLastErrorString(char *message, size_t max_size) { simdnn_last_error(message, max_size); }

/* Work completes at submission on the sim: nothing is ever in progress. */
SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnQueryRuntimeError(cudnnHandle_t handle, cudnnStatus_t *rstatus,
                                                 cudnnErrQueryMode_t mode, cudnnRuntimeTag_t *tag)
{
    (void)mode;
    (void)tag;
    if (!handle_ok(handle) || !rstatus)
        return CUDNN_STATUS_BAD_PARAM;
    *rstatus = CUDNN_STATUS_SUCCESS;
    return CUDNN_STATUS_SUCCESS;
}

/* The callback is kept and given back; the sim's cuDNN has no messages to
 * deliver to it. */
static struct { unsigned mask; void *udata; cudnnCallback_t fptr; } callback;
static pthread_mutex_t callback_lock = PTHREAD_MUTEX_INITIALIZER;

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnSetCallback(unsigned mask, void *udata, cudnnCallback_t fptr)
{
    pthread_mutex_lock(&callback_lock);
    callback.mask = mask;
    callback.udata = udata;
    callback.fptr = fptr;
    pthread_mutex_unlock(&callback_lock);
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnGetCallback(unsigned *mask, void **udata, cudnnCallback_t *fptr)
{
    if (!mask || !udata || !fptr)
        return CUDNN_STATUS_BAD_PARAM;
    pthread_mutex_lock(&callback_lock);
    *mask = callback.mask;
    *udata = callback.udata;
    *fptr = callback.fptr;
    pthread_mutex_unlock(&callback_lock);
    return CUDNN_STATUS_SUCCESS;
}

/* ------------------------------------------------------------ descriptors */
#define DESC_MAGIC 0x53494d444e4e4431ull        /* "SIMDNND1" */
#define MAXATTR 16

struct desc;
struct value {
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int64_t n;
    void *v;                        /* n elements; BACKEND_DESCRIPTOR: struct desc *, owned copies */
};
struct desc {
    uint64_t magic;
    cudnnBackendDescriptorType_t type;
    bool finalized;
    int nval;
    struct value val[MAXATTR];
    int64_t engines;                /* OPERATIONGRAPH, ENGINEHEUR: how many the sim has for the graph */
    cudnnBackendAttributeType_t real_last;  /* the type alpha or beta was last set in (0: neither) */
};

/* What each attribute of a descriptor type is: its type, how many elements
 * a setter may give (min..max), and rules observed on 9.26. */
enum {
    F_ONE = 1,          /* exactly one element ("1 != elemCount", BAD_PARAM) */
    F_REFUSED = 2,      /* its getter answers NOT_SUPPORTED once finalized */
    F_REAL = 4,         /* FLOAT or DOUBLE (alpha, beta); another type: BAD_PARAM */
    F_GETONLY = 8,      /* computed: the setter refuses it */
};
struct spec {
    cudnnBackendDescriptorType_t dt;
    cudnnBackendAttributeName_t name;
    cudnnBackendAttributeType_t type;
    int minn, maxn;
    unsigned flags;
    int child;          /* BACKEND_DESCRIPTOR: the type its elements must be; -1: an operation; -2: any */
};
#define ANY_OP (-1)
#define ANY_DESC (-2)
#define T(dt) CUDNN_BACKEND_##dt##_DESCRIPTOR
#define A(a) CUDNN_ATTR_##a
#define Y(t) CUDNN_TYPE_##t
static const struct spec specs[] = {
    /* tensors: up to 12 dimensions are accepted by the setter on 9.26 (9 was) */
    { T(TENSOR), A(TENSOR_BYTE_ALIGNMENT), Y(INT64), 1, 1, F_ONE | F_REFUSED, 0 },
    { T(TENSOR), A(TENSOR_DATA_TYPE), Y(DATA_TYPE), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_DIMENSIONS), Y(INT64), 1, 12, 0, 0 },
    { T(TENSOR), A(TENSOR_STRIDES), Y(INT64), 1, 12, 0, 0 },
    { T(TENSOR), A(TENSOR_VECTOR_COUNT), Y(INT64), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_VECTORIZED_DIMENSION), Y(INT64), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_UNIQUE_ID), Y(INT64), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_IS_VIRTUAL), Y(BOOLEAN), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_IS_BY_VALUE), Y(BOOLEAN), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_REORDERING_MODE), Y(TENSOR_REORDERING_MODE), 1, 1, F_ONE, 0 },
    { T(TENSOR), A(TENSOR_RAGGED_OFFSET_DESC), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(TENSOR) },
    /* convolution */
    { T(CONVOLUTION), A(CONVOLUTION_COMP_TYPE), Y(DATA_TYPE), 1, 1, F_ONE, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_CONV_MODE), Y(CONVOLUTION_MODE), 1, 1, F_ONE, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_DILATIONS), Y(INT64), 1, CUDNN_DIM_MAX - 2, 0, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_FILTER_STRIDES), Y(INT64), 1, CUDNN_DIM_MAX - 2, 0, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_POST_PADDINGS), Y(INT64), 1, CUDNN_DIM_MAX - 2, 0, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_PRE_PADDINGS), Y(INT64), 1, CUDNN_DIM_MAX - 2, 0, 0 },
    { T(CONVOLUTION), A(CONVOLUTION_SPATIAL_DIMS), Y(INT64), 1, 1, F_ONE, 0 },
    /* the three convolution operations */
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_ALPHA), Y(FLOAT), 1, 1, F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_BETA), Y(FLOAT), 1, 1, F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_CONV_DESC), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(CONVOLUTION) },
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_W), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE,
      T(TENSOR) },
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_X), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE,
      T(TENSOR) },
    { T(OPERATION_CONVOLUTION_FORWARD), A(OPERATION_CONVOLUTION_FORWARD_Y), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE,
      T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_ALPHA), Y(FLOAT), 1, 1,
      F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_BETA), Y(FLOAT), 1, 1,
      F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC), Y(BACKEND_DESCRIPTOR),
      1, 1, F_ONE, T(CONVOLUTION) },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_W), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_DX), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_DATA), A(OPERATION_CONVOLUTION_BWD_DATA_DY), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_ALPHA), Y(FLOAT), 1, 1,
      F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_BETA), Y(FLOAT), 1, 1,
      F_ONE | F_REAL, 0 },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC),
      Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(CONVOLUTION) },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_DW), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_X), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    { T(OPERATION_CONVOLUTION_BACKWARD_FILTER), A(OPERATION_CONVOLUTION_BWD_FILTER_DY), Y(BACKEND_DESCRIPTOR), 1, 1,
      F_ONE, T(TENSOR) },
    /* operation graph: its OPS getter answers NOT_SUPPORTED once finalized (9.26) */
    { T(OPERATIONGRAPH), A(OPERATIONGRAPH_HANDLE), Y(HANDLE), 1, 1, F_ONE, 0 },
    { T(OPERATIONGRAPH), A(OPERATIONGRAPH_OPS), Y(BACKEND_DESCRIPTOR), 1, 64, F_REFUSED, ANY_OP },
    { T(OPERATIONGRAPH), A(OPERATIONGRAPH_ENGINE_GLOBAL_COUNT), Y(INT64), 1, 1, F_ONE | F_GETONLY, 0 },
    { T(OPERATIONGRAPH), A(OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED), Y(BOOLEAN), 1, 1, F_ONE, 0 },
    /* heuristics, engines, configurations, knobs, plans */
    { T(ENGINEHEUR), A(ENGINEHEUR_MODE), Y(HEUR_MODE), 1, 1, F_ONE, 0 },
    { T(ENGINEHEUR), A(ENGINEHEUR_OPERATION_GRAPH), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(OPERATIONGRAPH) },
    { T(ENGINEHEUR), A(ENGINEHEUR_RESULTS), Y(BACKEND_DESCRIPTOR), 0, 64, F_GETONLY, T(ENGINECFG) },
    { T(ENGINEHEUR), A(ENGINEHEUR_SM_COUNT_TARGET), Y(INT32), 1, 1, F_ONE, 0 },
    { T(ENGINEHEUR), A(ENGINEHEUR_DEVICEPROP), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(DEVICEPROP) },
    { T(ENGINE), A(ENGINE_OPERATION_GRAPH), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(OPERATIONGRAPH) },
    { T(ENGINE), A(ENGINE_GLOBAL_INDEX), Y(INT64), 1, 1, F_ONE, 0 },
    { T(ENGINE), A(ENGINE_KNOB_INFO), Y(BACKEND_DESCRIPTOR), 0, 64, F_GETONLY, T(KNOB_INFO) },
    { T(ENGINE), A(ENGINE_NUMERICAL_NOTE), Y(NUMERICAL_NOTE), 0, 64, F_GETONLY, 0 },
    { T(ENGINE), A(ENGINE_LAYOUT_INFO), Y(BACKEND_DESCRIPTOR), 0, 64, F_GETONLY, T(LAYOUT_INFO) },
    { T(ENGINE), A(ENGINE_BEHAVIOR_NOTE), Y(BEHAVIOR_NOTE), 0, 64, F_GETONLY, 0 },
    { T(ENGINE), A(ENGINE_SM_COUNT_TARGET), Y(INT32), 1, 1, F_ONE, 0 },
    { T(ENGINE), A(ENGINE_DEVICEPROP), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(DEVICEPROP) },
    { T(ENGINECFG), A(ENGINECFG_ENGINE), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(ENGINE) },
    { T(ENGINECFG), A(ENGINECFG_KNOB_CHOICES), Y(BACKEND_DESCRIPTOR), 0, 64, 0, T(KNOB_CHOICE) },
    { T(ENGINECFG), A(ENGINECFG_WORKSPACE_SIZE), Y(INT64), 1, 1, F_ONE | F_GETONLY, 0 },
    { T(ENGINECFG), A(ENGINECFG_SHARED_MEMORY_USED), Y(INT64), 1, 1, F_ONE | F_GETONLY, 0 },
    { T(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_TYPE), Y(KNOB_TYPE), 1, 1, F_ONE, 0 },
    { T(KNOB_CHOICE), A(KNOB_CHOICE_KNOB_VALUE), Y(INT64), 1, 1, F_ONE, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_HANDLE), Y(HANDLE), 1, 1, F_ONE, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_ENGINE_CONFIG), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(ENGINECFG) },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_WORKSPACE_SIZE), Y(INT64), 1, 1, F_ONE | F_GETONLY, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS), Y(INT64), 0, 64, F_GETONLY, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS), Y(INT64), 0, 64, 0, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_JSON_REPRESENTATION), Y(CHAR), 0, 4096, F_GETONLY, 0 },
    { T(EXECUTION_PLAN), A(EXECUTION_PLAN_DEVICEPROP), Y(BACKEND_DESCRIPTOR), 1, 1, F_ONE, T(DEVICEPROP) },
    /* variant pack: UNIQUE_IDS and DATA_POINTERS are not given back once
     * finalized (9.26: NOT_SUPPORTED), the workspace is */
    { T(VARIANT_PACK), A(VARIANT_PACK_UNIQUE_IDS), Y(INT64), 0, 1024, F_REFUSED, 0 },
    { T(VARIANT_PACK), A(VARIANT_PACK_DATA_POINTERS), Y(VOID_PTR), 0, 1024, F_REFUSED, 0 },
    { T(VARIANT_PACK), A(VARIANT_PACK_INTERMEDIATES), Y(VOID_PTR), 0, 1024, F_REFUSED, 0 },
    { T(VARIANT_PACK), A(VARIANT_PACK_WORKSPACE), Y(VOID_PTR), 1, 1, F_ONE, 0 },
};
#undef T
#undef A
#undef Y

/* Descriptor types the sim implements; the others are created (as on
 * 9.26) but accept no attribute and do not finalize, with one line. */
static bool type_known(cudnnBackendDescriptorType_t t)
{
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (specs[i].dt == t)
            return true;
    return false;
}

static const struct spec *spec_of(cudnnBackendDescriptorType_t t, cudnnBackendAttributeName_t a)
{
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
        if (specs[i].dt == t && specs[i].name == a)
            return &specs[i];
    return NULL;
}

static size_t elem_size(cudnnBackendAttributeType_t t)
{
    switch (t) {
    case CUDNN_TYPE_HANDLE: return sizeof(cudnnHandle_t);
    case CUDNN_TYPE_BOOLEAN: return sizeof(bool);
    case CUDNN_TYPE_INT64: return sizeof(int64_t);
    case CUDNN_TYPE_FLOAT: return sizeof(float);
    case CUDNN_TYPE_DOUBLE: return sizeof(double);
    case CUDNN_TYPE_VOID_PTR: return sizeof(void *);
    case CUDNN_TYPE_BACKEND_DESCRIPTOR: return sizeof(cudnnBackendDescriptor_t);
    case CUDNN_TYPE_CHAR: return sizeof(char);
    case CUDNN_TYPE_FRACTION: return sizeof(cudnnFraction_t);
    case CUDNN_TYPE_INT32: return sizeof(int32_t);
    default: return sizeof(int);     /* the enumerations */
    }
}

static bool is_op(cudnnBackendDescriptorType_t t)
{
    return t == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR ||
           t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR ||
           (t >= CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR && t <= CUDNN_BACKEND_OPERATION_GEN_STATS_DESCRIPTOR) ||
           t == CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR || t == CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR;
}

static void desc_free(struct desc *d);

static void value_clear(struct value *v)
{
    if (v->type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
        for (int64_t i = 0; i < v->n; i++)
            desc_free(((struct desc **)v->v)[i]);
    free(v->v);
    v->v = NULL;
    v->n = 0;
}

static void desc_clear(struct desc *d)
{
    for (int i = 0; i < d->nval; i++)
        value_clear(&d->val[i]);
    d->nval = 0;
    d->finalized = false;
    d->engines = 0;
    d->real_last = 0;
}

static void desc_free(struct desc *d)
{
    if (!d)
        return;
    desc_clear(d);
    d->magic = 0;
    free(d);
}

/* A deep copy of src's contents into dst (dst's own are dropped first):
 * descriptors held by attributes are copied too, so a descriptor holds
 * what it was given when it was given, as the real library copies (a
 * getter of a descriptor attribute fills the caller's descriptor). */
static int desc_copy(struct desc *dst, const struct desc *src)
{
    desc_clear(dst);
    dst->type = src->type;
    for (int i = 0; i < src->nval; i++) {
        const struct value *s = &src->val[i];
        struct value *t = &dst->val[dst->nval];
        size_t bytes = (size_t)s->n * elem_size(s->type);
        *t = (struct value){ s->name, s->type, 0, NULL };
        if (bytes && !(t->v = malloc(bytes)))
            return -1;
        dst->nval++;
        if (s->type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
            for (int64_t k = 0; k < s->n; k++) {
                struct desc *c = calloc(1, sizeof *c);
                if (!c || desc_copy(c, ((struct desc **)s->v)[k]) != 0) {
                    desc_free(c);
                    return -1;
                }
                c->magic = DESC_MAGIC;
                ((struct desc **)t->v)[k] = c;
                t->n = k + 1;
            }
        } else {
            if (bytes)
                memcpy(t->v, s->v, bytes);
            t->n = s->n;
        }
    }
    dst->finalized = src->finalized;
    dst->engines = src->engines;
    dst->real_last = src->real_last;
    return 0;
}

static struct value *find(const struct desc *d, cudnnBackendAttributeName_t a)
{
    for (int i = 0; i < d->nval; i++)
        if (d->val[i].name == a)
            return (struct value *)&d->val[i];
    return NULL;
}

/* The descriptor a program passes, or NULL if it is none of ours. */
static struct desc *desc_of(cudnnBackendDescriptor_t p)
{
    struct desc *d = p;
    return d && live_has(d) && d->magic == DESC_MAGIC ? d : NULL;
}

/* The descriptor argument of an entry point that tells NULL
 * (BAD_PARAM_NULL_POINTER) from a handle that is no descriptor (BAD_PARAM),
 * as 9.26's cudnnBackendSetAttribute and cudnnBackendFinalize do: SUCCESS
 * with *out, or that status. */
static cudnnStatus_t desc_arg(cudnnBackendDescriptor_t p, struct desc **out)
{
    if (!p)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "nullptr == descriptor");
    if (!(*out = desc_of(p)))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a backend descriptor");
    return CUDNN_STATUS_SUCCESS;
}

static void note_type(cudnnBackendDescriptorType_t t)
{
    static atomic_flag said[64];
    char text[128];
    snprintf(text, sizeof text, "backend descriptor type %d is not implemented: its attributes are refused", (int)t);
    if ((unsigned)t < 64)
        simlib_note_once(&said[t], LIB, text);
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                                       cudnnBackendDescriptor_t *descriptor)
{
    /* 9.26: an unknown type, and INTERMEDIATE_INFO, are
     * CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ("getSizeOfDescriptor") */
    if ((int)descriptorType < 0 || descriptorType > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR ||
        descriptorType == CUDNN_BACKEND_INTERMEDIATE_INFO_DESCRIPTOR)
        return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
                           "CUDNN_STATUS_SUCCESS != getSizeOfDescriptor(descriptorType, size)");
    if (!descriptor)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "nullptr == descriptor");
    if (!type_known(descriptorType))
        note_type(descriptorType);
    struct desc *d = calloc(1, sizeof *d);
    if (!d || live_add(d) != 0) {
        free(d);
        return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory");
    }
    d->magic = DESC_MAGIC;
    d->type = descriptorType;
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
    if (!descriptor)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "nullptr == descriptor");
    struct desc *d = desc_of(descriptor);
    if (!d || !live_del(d))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a backend descriptor");
    desc_free(d);
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnBackendInitialize (deprecated): re-initialises the descriptor's
 * contents, keeping its type. */
SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor)
{
    struct desc *d = desc_of(descriptor);
    if (!d)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "nullptr == descriptor");
    desc_clear(d);
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType, int64_t elementCount,
                                                   const void *arrayOfElements)
{
    struct desc *d;
    cudnnStatus_t st = desc_arg(descriptor, &d);
    if (st != CUDNN_STATUS_SUCCESS)
        return st;
    /* 9.26: a finalized descriptor refuses every setter (BAD_PARAM) */
    if (d->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the descriptor is finalized");
    const struct spec *s = spec_of(d->type, attributeName);
    if (!s || (s->flags & F_GETONLY))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "ptrDesc->set(attributeName, attributeType, elementCount, "
                                                   "arrayOfElements)");
    if (s->flags & F_REAL) {
        /* alpha and beta: FLOAT or DOUBLE; anything else is BAD_PARAM on
         * 9.26, NOT_SUPPORTED for the backward-data operation's */
        if (attributeType != CUDNN_TYPE_FLOAT && attributeType != CUDNN_TYPE_DOUBLE)
            return simdnn_fail(d->type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR
                                   ? CUDNN_STATUS_NOT_SUPPORTED
                                   : CUDNN_STATUS_BAD_PARAM,
                               "ptrDesc->set(attributeName, attributeType, elementCount, arrayOfElements)");
    } else if (attributeType != s->type) {
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "attribute %d: type %d != attrType %d",
                            (int)attributeName, (int)s->type, (int)attributeType);
    }
    if ((s->flags & F_ONE) && elementCount != 1)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "1 != elemCount");
    if (elementCount < s->minn || elementCount > s->maxn)
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM, "attribute %d: %lld elements", (int)attributeName,
                            (long long)elementCount);
    if (elementCount > 0 && !arrayOfElements)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "arrayOfElements is NULL");
    /* every element of a descriptor attribute must be a descriptor of the
     * right type (9.26 crashes on another: std::bad_alloc) */
    struct desc *kids[64];
    if (attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        if (elementCount > 64)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "too many descriptors");
        for (int64_t i = 0; i < elementCount; i++) {
            struct desc *c = desc_of(((cudnnBackendDescriptor_t const *)arrayOfElements)[i]);
            if (!c || c == d)
                return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a backend descriptor");
            if (s->child == ANY_OP ? !is_op(c->type) : s->child != ANY_DESC && (int)c->type != s->child)
                return simdnn_failf(CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE, "attribute %d: a descriptor of type %d",
                                    (int)attributeName, (int)c->type);
            kids[i] = c;
        }
    }
    struct value nv = { attributeName, attributeType, 0, NULL };
    size_t bytes = (size_t)elementCount * elem_size(attributeType);
    if (bytes && !(nv.v = malloc(bytes)))
        return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory");
    if (attributeType == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
        for (int64_t i = 0; i < elementCount; i++) {
            struct desc *c = calloc(1, sizeof *c);
            if (!c || desc_copy(c, kids[i]) != 0) {
                desc_free(c);
                value_clear(&nv);
                return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory");
            }
            c->magic = DESC_MAGIC;
            ((struct desc **)nv.v)[i] = c;
            nv.n = i + 1;
        }
    } else {
        if (bytes)
            memcpy(nv.v, arrayOfElements, bytes);
        nv.n = elementCount;
    }
    if (s->flags & F_REAL)
        d->real_last = attributeType;
    struct value *old = find(d, attributeName);
    if (old) {
        value_clear(old);
        *old = nv;
    } else if (d->nval < MAXATTR) {
        d->val[d->nval++] = nv;
    } else {
        value_clear(&nv);
        return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "too many attributes");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* ---- reading a descriptor's attributes (with the documented defaults) */
static int64_t get_i64(const struct desc *d, cudnnBackendAttributeName_t a, int64_t dflt)
{
    const struct value *v = find(d, a);
    return v && v->n == 1 ? *(const int64_t *)v->v : dflt;
}

static int get_enum(const struct desc *d, cudnnBackendAttributeName_t a, int dflt)
{
    const struct value *v = find(d, a);
    return v && v->n == 1 ? *(const int *)v->v : dflt;
}

static bool get_bool(const struct desc *d, cudnnBackendAttributeName_t a)
{
    const struct value *v = find(d, a);
    return v && v->n == 1 && *(const bool *)v->v;
}

static const int64_t *get_arr(const struct desc *d, cudnnBackendAttributeName_t a, int64_t *n)
{
    const struct value *v = find(d, a);
    *n = v ? v->n : -1;
    return v ? (const int64_t *)v->v : NULL;
}

static struct desc *get_desc(const struct desc *d, cudnnBackendAttributeName_t a)
{
    const struct value *v = find(d, a);
    return v && v->type == CUDNN_TYPE_BACKEND_DESCRIPTOR && v->n == 1 ? ((struct desc **)v->v)[0] : NULL;
}

static double get_real(const struct desc *d, cudnnBackendAttributeName_t a, double dflt)
{
    const struct value *v = find(d, a);
    if (!v || v->n != 1)
        return dflt;
    return v->type == CUDNN_TYPE_DOUBLE ? *(const double *)v->v : *(const float *)v->v;
}

/* ---- finalize: what each type checks (the messages are 9.26's) */
static cudnnStatus_t fin_tensor(struct desc *d)
{
    int64_t nd, ns;
    const int64_t *dim = get_arr(d, CUDNN_ATTR_TENSOR_DIMENSIONS, &nd);
    const int64_t *str = get_arr(d, CUDNN_ATTR_TENSOR_STRIDES, &ns);
    (void)dim;
    if (nd < 1)
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM, "Tensor must have at least 1 dimension, but got %lld.",
                            (long long)nd);
    if (nd != ns)
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM,
                            "Tensor dimension count (%lld) does not match stride count (%lld). Set both "
                            "CUDNN_ATTR_TENSOR_DIMENSIONS and CUDNN_ATTR_TENSOR_STRIDES.",
                            (long long)nd, (long long)ns);
    for (int64_t i = 0; i < ns; i++)
        if (str[i] < 0)
            return simdnn_failf(CUDNN_STATUS_BAD_PARAM, "Tensor stride %lld has invalid value %lld (must be >= 0).",
                                (long long)i, (long long)str[i]);
    int dt = get_enum(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
    size_t es = simdnn_dtype_size(dt);
    if (!es)    /* 9.26 executes an invalid instruction here */
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM, "Tensor data type %d is not a cudnnDataType_t", dt);
    /* the alignment defaults to 1, so an unset one fails for any type wider
     * than a byte */
    int64_t al = get_i64(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 1);
    if (al <= 0 || al % (int64_t)es != 0)
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM,
                            "Tensor pointer alignment (%lld) must be positive and a multiple of element size "
                            "for data type %d.", (long long)al, dt);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_conv(struct desc *d)
{
    int64_t sd = get_i64(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, -1), n;
    static const cudnnBackendAttributeName_t arrays[] = { CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
                                                          CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
                                                          CUDNN_ATTR_CONVOLUTION_DILATIONS,
                                                          CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES };
    if (sd < 1 || sd > CUDNN_DIM_MAX - 2)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "finalize_internal()");
    for (int k = 0; k < 4; k++) {
        const int64_t *v = get_arr(d, arrays[k], &n);
        if (n != sd)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "finalize_internal()");
        for (int64_t i = 0; i < n; i++)
            if (k < 2 ? v[i] < 0 : v[i] < 1)    /* paddings >= 0, dilations and strides >= 1 */
                return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "finalize_internal()");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* The three tensors and the convolution of a convolution operation:
 * x [N,C,in...], w [K,C/g,f...], y [N,K,out...] by role. */
struct conv_op {
    struct desc *x, *w, *y, *c;
    double alpha, beta;
    int dir;
};

static int conv_op_of(const struct desc *op, struct conv_op *o)
{
    int row = simdnn_conv_row(op->type);
    if (row < 0)
        return -1;
    const cudnnBackendAttributeName_t *a = simdnn_conv_attrs[row];
    o->x = get_desc(op, a[SIMDNN_CA_X]);
    o->w = get_desc(op, a[SIMDNN_CA_W]);
    o->y = get_desc(op, a[SIMDNN_CA_Y]);
    o->c = get_desc(op, a[SIMDNN_CA_CONV]);
    o->alpha = get_real(op, a[SIMDNN_CA_ALPHA], 1);
    o->beta = get_real(op, a[SIMDNN_CA_BETA], 0);
    o->dir = row;               /* enum simdnn_dir: the rows' order */
    return 0;
}

static cudnnStatus_t fin_conv_op(struct desc *op)
{
    struct conv_op o;
    conv_op_of(op, &o);
    if (!o.x || !o.w || !o.y || !o.c || !o.x->finalized || !o.w->finalized || !o.y->finalized || !o.c->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "(!xPort.tensor.isFinalized()) || (!wPort.tensor.isFinalized()) "
                                                   "|| (!cDesc.isFinalized()) || (!yPort.tensor.isFinalized())");
    int64_t nx, nw, ny, n;
    const int64_t *x = get_arr(o.x, CUDNN_ATTR_TENSOR_DIMENSIONS, &nx);
    const int64_t *w = get_arr(o.w, CUDNN_ATTR_TENSOR_DIMENSIONS, &nw);
    const int64_t *y = get_arr(o.y, CUDNN_ATTR_TENSOR_DIMENSIONS, &ny);
    int64_t sd = get_i64(o.c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0);
    const int64_t *pre = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, &n);
    const int64_t *post = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, &n);
    const int64_t *dil = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_DILATIONS, &n);
    const int64_t *str = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, &n);
    if (nx != sd + 2 || nw != nx || ny != nx)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the tensors' ranks do not match the convolution's "
                                                   "spatial dimensions");
    if (x[0] != y[0] || w[0] != y[1] || w[1] <= 0 || x[1] % w[1] != 0 || w[0] % (x[1] / w[1]) != 0)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the tensors' batch or channel dimensions do not match");
    /* 9.26: is_valid_spatial_dim(x, w, y, pre, post, stride, dilation) */
    for (int64_t i = 0; i < sd; i++) {
        int64_t span = x[2 + i] + pre[i] + post[i] - dil[i] * (w[2 + i] - 1) - 1;
        if (span < 0 || span / str[i] + 1 != y[2 + i])
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM,
                               "is_valid_spatial_dim(xSpatialDimA[dim], wSpatialDimA[dim], ySpatialDimA[dim], "
                               "cDesc.getPadLowerA()[dim], cDesc.getPadUpperA()[dim], cDesc.getStrideA()[dim], "
                               "cDesc.getDilationA()[dim])");
    }
    return CUDNN_STATUS_SUCCESS;
}

/* How many engines the sim has for a graph: one for a graph of one
 * convolution whose tensors it can compute (3 to 5 dimensions; float,
 * double, half, bfloat16), none otherwise. */
static int64_t engines_for(const struct desc *g)
{
    const struct value *ops = find(g, CUDNN_ATTR_OPERATIONGRAPH_OPS);
    struct conv_op o;
    if (!ops || ops->n != 1 || conv_op_of(((struct desc **)ops->v)[0], &o) != 0)
        return 0;
    struct desc *t[3] = { o.x, o.w, o.y };
    for (int i = 0; i < 3; i++) {
        int64_t nd;
        get_arr(t[i], CUDNN_ATTR_TENSOR_DIMENSIONS, &nd);
        int dt = get_enum(t[i], CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
        if (nd < 3 || nd > 5 || get_bool(t[i], CUDNN_ATTR_TENSOR_IS_VIRTUAL) ||
            (dt != CUDNN_DATA_FLOAT && dt != CUDNN_DATA_DOUBLE && dt != CUDNN_DATA_HALF && dt != CUDNN_DATA_BFLOAT16))
            return 0;
    }
    return 1;
}

static cudnnStatus_t fin_graph(struct desc *d)
{
    const struct value *ops = find(d, CUDNN_ATTR_OPERATIONGRAPH_OPS);
    if (!ops || ops->n < 1)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "outputGraph.buildDAG()");
    for (int64_t i = 0; i < ops->n; i++)
        if (!((struct desc **)ops->v)[i]->finalized)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "an operation of the graph is not finalized");
    const struct value *h = find(d, CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
    if (h && !handle_ok(*(cudnnHandle_t *)h->v))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a cuDNN handle");
    d->engines = engines_for(d);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_heur(struct desc *d)
{
    struct desc *g = get_desc(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
    if (!g)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "EngineHeuristics: operation graph is NULL. Set "
                                                   "CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH before finalize.");
    if (!g->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "the operation graph is not finalized");
    d->engines = g->engines;
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_engine(struct desc *d)
{
    struct desc *g = get_desc(d, CUDNN_ATTR_ENGINE_OPERATION_GRAPH);
    if (!g)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "Received null pointer on operation set");
    if (!g->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "the operation graph is not finalized");
    int64_t i = get_i64(d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1);
    if (i < 0 || i >= g->engines)
        return simdnn_failf(CUDNN_STATUS_NOT_SUPPORTED, "the sim has no engine %lld for this graph", (long long)i);
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_engcfg(struct desc *d)
{
    struct desc *e = get_desc(d, CUDNN_ATTR_ENGINECFG_ENGINE);
    if (!e)     /* 9.26 crashes (SIGSEGV) finalizing a configuration without an engine */
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NULL_POINTER, "no CUDNN_ATTR_ENGINECFG_ENGINE");
    if (!e->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "the engine is not finalized");
    const struct value *k = find(d, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES);
    if (k && k->n > 0)      /* the sim's engine has no knobs */
        return simdnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "the engine has no knob to choose");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_plan(struct desc *d)
{
    struct desc *c = get_desc(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    if (!c || !c->finalized)    /* 9.26: "assert_finalized == true" */
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "assert_finalized == true");
    /* the handle: the plan's (CUDNN_ATTR_EXECUTION_PLAN_HANDLE, deprecated),
     * else the operation graph's (cudnn-frontend 1.x sets only that one) */
    const struct value *h = find(d, CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
    if (!h && !find(d, CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP)) {
        struct desc *e = get_desc(c, CUDNN_ATTR_ENGINECFG_ENGINE);
        struct desc *g = e ? get_desc(e, CUDNN_ATTR_ENGINE_OPERATION_GRAPH) : NULL;
        if (!g || !(h = find(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE)))
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "an execution plan needs a handle (its own or its operation "
                                                       "graph's) or a device property descriptor");
    }
    if (h && !handle_ok(*(cudnnHandle_t *)h->v))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a cuDNN handle");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_vpack(struct desc *d)
{
    const struct value *u = find(d, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
    const struct value *p = find(d, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    if ((u ? u->n : 0) != (p ? p->n : 0))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "ptrs_count != uids_count");
    return CUDNN_STATUS_SUCCESS;
}

static cudnnStatus_t fin_knob(struct desc *d)
{
    (void)d;
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
{
    struct desc *d;
    cudnnStatus_t s = desc_arg(descriptor, &d);
    if (s != CUDNN_STATUS_SUCCESS)
        return s;
    if (d->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the descriptor is already finalized");
    switch (d->type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: s = fin_tensor(d); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: s = fin_conv(d); break;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR: s = fin_conv_op(d); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: s = fin_graph(d); break;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: s = fin_heur(d); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: s = fin_engine(d); break;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: s = fin_engcfg(d); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: s = fin_plan(d); break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: s = fin_vpack(d); break;
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR: s = fin_knob(d); break;
    default:
        note_type(d->type);
        s = simdnn_failf(CUDNN_STATUS_NOT_SUPPORTED, "backend descriptor type %d is not implemented by the sim",
                         (int)d->type);
    }
    if (s == CUDNN_STATUS_SUCCESS)
        d->finalized = true;
    return s;
}

/* ---- getters */
/* Copies n elements of type t out, the count actually given in *count.
 * (9.26: with no array the count is the attribute's; with one, the number
 * of elements written, min(requested, held).) */
static cudnnStatus_t give(const void *src, int64_t held, cudnnBackendAttributeType_t t, int64_t req, int64_t *count,
                          void *out)
{
    int64_t n = out ? (req < held ? req : held) : held;
    if (out && n > 0)
        memcpy(out, src, (size_t)n * elem_size(t));
    if (count)
        *count = n;
    return CUDNN_STATUS_SUCCESS;
}

/* Fills the program's descriptors out[0..req) with copies of src[0..held). */
static cudnnStatus_t give_descs(struct desc *const *src, int64_t held, int64_t req, int64_t *count, void *out)
{
    int64_t n = out ? (req < held ? req : held) : held;
    for (int64_t i = 0; out && i < n; i++) {
        struct desc *dst = desc_of(((cudnnBackendDescriptor_t *)out)[i]);
        if (!dst || dst->type != src[i]->type)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the array holds a descriptor of another type");
        if (desc_copy(dst, src[i]) != 0)
            return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory");
    }
    if (count)
        *count = n;
    return CUDNN_STATUS_SUCCESS;
}

/* A finalized engine configuration of engine `index` for graph g. */
static struct desc *make_engcfg(const struct desc *g, int64_t index)
{
    struct desc *e = calloc(1, sizeof *e), *c = calloc(1, sizeof *c), *gc = calloc(1, sizeof *gc);
    struct desc **ev = malloc(sizeof *ev), **gv = malloc(sizeof *gv);
    int64_t *iv = malloc(sizeof *iv);
    if (!e || !c || !gc || !ev || !gv || !iv || desc_copy(gc, g) != 0) {
        free(e), free(c), desc_free(gc), free(ev), free(gv), free(iv);
        return NULL;
    }
    gc->magic = e->magic = c->magic = DESC_MAGIC;
    e->type = CUDNN_BACKEND_ENGINE_DESCRIPTOR;
    gv[0] = gc;
    *iv = index;
    e->val[0] = (struct value){ CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, gv };
    e->val[1] = (struct value){ CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, iv };
    e->nval = 2;
    e->finalized = true;
    c->type = CUDNN_BACKEND_ENGINECFG_DESCRIPTOR;
    ev[0] = e;
    c->val[0] = (struct value){ CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, ev };
    c->nval = 1;
    c->finalized = true;
    return c;
}

/* The JSON the plan gives back (CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION),
 * in 9.26's shape ({"engineId":0,"smVersion":0,"knobChoices":{}}, the text of
 * its engine configuration's failure on the CPU). */
static const char plan_json[] = "{\"engineId\":0,\"smVersion\":90,\"knobChoices\":{}}";

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType,
                                                   int64_t requestedElementCount, int64_t *elementCount,
                                                   void *arrayOfElements)
{
    struct desc *d = desc_of(descriptor);
    if (!d)     /* 9.26: BAD_PARAM for NULL here (not BAD_PARAM_NULL_POINTER) */
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a backend descriptor");
    if (!d->finalized)
        return simdnn_fail(CUDNN_STATUS_NOT_INITIALIZED, "status");
    const struct spec *s = spec_of(d->type, attributeName);
    if (!s)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "status");
    if (s->flags & F_REFUSED)
        return simdnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "");
    if (arrayOfElements && requestedElementCount < 0)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "(nullptr != elemArray) && (0 > requestedElemCount)");
    const struct value *v = find(d, attributeName);
    if (s->flags & F_REAL) {
        /* alpha/beta answer in the type they were set in (default FLOAT);
         * the backward-filter operation keeps both in the type of the one
         * set last (9.26: alpha set DOUBLE, then beta FLOAT: alpha answers
         * as FLOAT only) */
        cudnnBackendAttributeType_t held = v ? v->type : CUDNN_TYPE_FLOAT;
        if (d->type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR && d->real_last)
            held = d->real_last;
        if (attributeType != held)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "getAlpha().t != attrType");
        if (v && v->type != held) {
            double r = v->type == CUDNN_TYPE_DOUBLE ? *(const double *)v->v : *(const float *)v->v;
            float f = (float)r;
            return give(held == CUDNN_TYPE_DOUBLE ? (const void *)&r : &f, 1, held, requestedElementCount,
                        elementCount, arrayOfElements);
        }
    } else if (attributeName == CUDNN_ATTR_CONVOLUTION_CONV_MODE) {
        /* 9.26's getter compares with CUDNN_TYPE_DATA_TYPE: a call with
         * CUDNN_TYPE_CONVOLUTION_MODE fails ("CUDNN_TYPE_DATA_TYPE !=
         * attrType"), as observed; the sim answers the same */
        if (attributeType != CUDNN_TYPE_DATA_TYPE)
            return simdnn_fail(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "CUDNN_TYPE_DATA_TYPE != attrType");
    } else if (attributeType != s->type) {
        return simdnn_failf(CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE, "attribute %d: type %d != attrType %d",
                            (int)attributeName, (int)s->type, (int)attributeType);
    }
    if ((s->flags & F_ONE) && arrayOfElements && requestedElementCount != 1)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "1 != requestedElemCount");

    /* computed attributes */
    int64_t i64;
    int32_t i32 = 0;
    switch ((int)attributeName) {
    case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
        return give(&d->engines, 1, attributeType, requestedElementCount, elementCount, arrayOfElements);
    case CUDNN_ATTR_ENGINEHEUR_RESULTS: {
        struct desc *g = get_desc(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
        struct desc *cfg[1] = { NULL };
        int64_t held = d->engines > 0 ? 1 : 0;
        if (held && arrayOfElements && requestedElementCount > 0 && !(cfg[0] = make_engcfg(g, 0)))
            return simdnn_fail(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED, "out of host memory");
        cudnnStatus_t r = give_descs(cfg, held, requestedElementCount, elementCount, arrayOfElements);
        desc_free(cfg[0]);
        return r;
    }
    case CUDNN_ATTR_ENGINE_KNOB_INFO:
    case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
    case CUDNN_ATTR_ENGINE_LAYOUT_INFO:
    case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE:
    case CUDNN_ATTR_EXECUTION_PLAN_COMPUTED_INTERMEDIATE_UIDS:
        /* the sim's engine has no knobs, notes, layouts or intermediates */
        if (elementCount)
            *elementCount = 0;
        return CUDNN_STATUS_SUCCESS;
    case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE:
    case CUDNN_ATTR_ENGINECFG_SHARED_MEMORY_USED:
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
        i64 = 0;            /* no workspace */
        return give(&i64, 1, attributeType, requestedElementCount, elementCount, arrayOfElements);
    case CUDNN_ATTR_ENGINE_SM_COUNT_TARGET:
    case CUDNN_ATTR_ENGINEHEUR_SM_COUNT_TARGET:
        if (!v)             /* 9.26: 0 when unset */
            return give(&i32, 1, attributeType, requestedElementCount, elementCount, arrayOfElements);
        break;
    case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION:
        return give(plan_json, (int64_t)sizeof plan_json, attributeType, requestedElementCount, elementCount,
                    arrayOfElements);
    default:
        break;
    }
    if (v && v->type == CUDNN_TYPE_BACKEND_DESCRIPTOR)
        return give_descs((struct desc *const *)v->v, v->n, requestedElementCount, elementCount, arrayOfElements);
    if (v)
        return give(v->v, v->n, attributeType, requestedElementCount, elementCount, arrayOfElements);
    /* unset: the defaults 9.26 answers */
    union { int64_t i; int e; bool b; float f; } dflt = { 0 };
    switch ((int)attributeName) {
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT: dflt.i = 1; break;
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION: dflt.i = -1; break;
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA: dflt.f = 1.0f; break;
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE: dflt.e = CUDNN_DATA_FLOAT; break;
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL:
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA:
    case CUDNN_ATTR_ENGINEHEUR_MODE:
    case CUDNN_ATTR_TENSOR_UNIQUE_ID:
    case CUDNN_ATTR_TENSOR_REORDERING_MODE:
    case CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED:
        break;
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE: {
        void *null = NULL;      /* 9.26: one NULL when unset */
        return give(&null, 1, attributeType, requestedElementCount, elementCount, arrayOfElements);
    }
    default:
        if (elementCount)
            *elementCount = 0;
        return CUDNN_STATUS_SUCCESS;
    }
    return give(&dflt, 1, attributeType, requestedElementCount, elementCount, arrayOfElements);
}

/* ------------------------------------------------------------ execute */
static int to_simdnn_dtype(int t)
{
    switch (t) {
    case CUDNN_DATA_FLOAT: return SIMDNN_F32;
    case CUDNN_DATA_DOUBLE: return SIMDNN_F64;
    case CUDNN_DATA_HALF: return SIMDNN_F16;
    case CUDNN_DATA_BFLOAT16: return SIMDNN_BF16;
    default: return -1;
    }
}

/* A backend tensor as the kernel sees it: [N, C, spatial...] padded with
 * unit dimensions to SIMDNN_MAXSP spatial ones. */
static int fill_tensor(struct simdnn_tensor *t, const struct desc *d)
{
    int64_t nd, ns;
    const int64_t *dim = get_arr(d, CUDNN_ATTR_TENSOR_DIMENSIONS, &nd);
    const int64_t *str = get_arr(d, CUDNN_ATTR_TENSOR_STRIDES, &ns);
    int dt = to_simdnn_dtype(get_enum(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT));
    if (dt < 0 || nd < 3 || nd > 2 + SIMDNN_MAXSP || ns != nd)
        return -1;
    memset(t, 0, sizeof *t);
    t->dtype = dt;
    for (int i = 0; i < 2 + SIMDNN_MAXSP; i++) {
        t->dim[i] = i < nd ? dim[i] : 1;
        t->stride[i] = i < nd ? str[i] : 0;
    }
    return 0;
}

static int64_t elems(const struct simdnn_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < 2 + SIMDNN_MAXSP; i++)
        n *= t->dim[i];
    return n;
}

/* The pointer the variant pack gives for uid; 0 when it has none. */
static int vp_ptr(const struct desc *vp, int64_t uid, void **p)
{
    const struct value *u = find(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
    const struct value *ptrs = find(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
    for (int64_t i = 0; u && ptrs && i < u->n && i < ptrs->n; i++)
        if (((const int64_t *)u->v)[i] == uid) {
            *p = ((void *const *)ptrs->v)[i];
            return 1;
        }
    return 0;
}

/* Launches the convolution on the handle's stream: a stream of the handle's
 * device runs it in that stream's context; the NULL stream in the handle's
 * device's context, made current for the launch as cuDNN does. */
static cudnnStatus_t launch_conv(cudnnHandle_t h, struct simdnn_conv *p, const void *a, const void *b, void *out)
{
    if (p->total == 0)
        return CUDNN_STATUS_SUCCESS;
    void *params[] = { &a, &b, &out, p };
    CUcontext cur = NULL;
    if (!h->stream) {
        simlib_drv.cuCtxGetCurrent(&cur);
        if (cur != h->ctx)
            simlib_drv.cuCtxSetCurrent(h->ctx);
    }
    CUresult r = simlib_launch(&image, "simdnn_conv", (unsigned long long)p->total, (CUstream)h->stream, params);
    if (!h->stream && cur != h->ctx)
        simlib_drv.cuCtxSetCurrent(cur);
    if (r != CUDA_SUCCESS)
        return simdnn_failf(CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER, "the convolution kernel's launch failed (%d)",
                            (int)r);
    return CUDNN_STATUS_SUCCESS;
}

SIMLIB_EXPORT cudnnStatus_t CUDNNWINAPI cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                              cudnnBackendDescriptor_t variantPack)
{
    if (!handle_ok(handle))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "not a cuDNN handle");
    struct desc *plan = desc_of(executionPlan), *vp = desc_of(variantPack);
    if (!plan || plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !vp ||
        vp->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "an execution plan and a variant pack are needed");
    if (!plan->finalized || !vp->finalized)
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED, "the plan or the variant pack is not finalized");
    struct desc *cfg = get_desc(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
    struct desc *eng = cfg ? get_desc(cfg, CUDNN_ATTR_ENGINECFG_ENGINE) : NULL;
    struct desc *g = eng ? get_desc(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH) : NULL;
    const struct value *ops = g ? find(g, CUDNN_ATTR_OPERATIONGRAPH_OPS) : NULL;
    struct conv_op o;
    if (!ops || ops->n != 1 || conv_op_of(((struct desc **)ops->v)[0], &o) != 0)
        return simdnn_fail(CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN, "the sim executes one convolution per graph");
    struct simdnn_conv p;
    memset(&p, 0, sizeof p);
    if (fill_tensor(&p.x, o.x) || fill_tensor(&p.w, o.w) || fill_tensor(&p.y, o.y))
        return simdnn_fail(CUDNN_STATUS_NOT_SUPPORTED, "a tensor the sim cannot compute");
    int64_t n, sd = get_i64(o.c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0);
    const int64_t *pre = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, &n);
    const int64_t *dil = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_DILATIONS, &n);
    const int64_t *str = get_arr(o.c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, &n);
    for (int i = 0; i < SIMDNN_MAXSP; i++) {
        p.pre[i] = i < sd ? pre[i] : 0;
        p.dilation[i] = i < sd ? dil[i] : 1;
        p.stride[i] = i < sd ? str[i] : 1;
    }
    p.groups = p.x.dim[1] / p.w.dim[1];
    p.alpha = o.alpha;
    p.beta = o.beta;
    p.dir = o.dir;
    p.flip = get_enum(o.c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_CONVOLUTION) == CUDNN_CONVOLUTION;
    p.acc_double = get_enum(o.c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT) == CUDNN_DATA_DOUBLE;
    void *px, *pw, *py;
    int64_t ux = get_i64(o.x, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0), uw = get_i64(o.w, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0),
            uy = get_i64(o.y, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
    if (!vp_ptr(vp, ux, &px) || !vp_ptr(vp, uw, &pw) || !vp_ptr(vp, uy, &py))
        return simdnn_fail(CUDNN_STATUS_BAD_PARAM, "the variant pack has no pointer for a tensor of the graph");
    switch (p.dir) {
    case SIMDNN_FWD: p.total = elems(&p.y); return launch_conv(handle, &p, px, pw, py);
    case SIMDNN_BWD_DATA: p.total = elems(&p.x); return launch_conv(handle, &p, py, pw, px);
    default: p.total = elems(&p.w); return launch_conv(handle, &p, px, py, pw);
    }
}
