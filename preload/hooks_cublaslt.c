/* hooks_cublaslt: cuBLASLt's matmul checked at its API (preload/hooks_lib.h
 * has the machinery, preload/hooks_lib.def the table): the stream
 * argument's device, the descriptor's pointer mode and its pointer
 * attributes. */
#include "preload/hooks_lib.h"

#define LIB_THIS CUBLASLT

/* The descriptor attributes that hold device pointers (cublasLt.h: "Device
 * pointer to ..."); NULL (the default) is never checked. */
#define LT_ATTR(a) { a, #a }
static const struct {
    cublasLtMatmulDescAttributes_t attr;
    const char *name;
} lt_pointer_attrs[] = {
    LT_ATTR(CUBLASLT_MATMUL_DESC_BIAS_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_C_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_AMAX_D_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER),
    LT_ATTR(CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER),
};
#define N_LT_ATTRS (sizeof lt_pointer_attrs / sizeof lt_pointer_attrs[0])

static void lt_check(cublasLtMatmulDesc_t desc, const void *alpha, const void *A, const void *B, const void *beta,
                     const void *C, const void *D, const void *workspace, size_t workspaceSize, cudaStream_t stream)
{
    __typeof__(&cublasLtMatmulDescGetAttribute) get = REAL(cublasLtMatmulDescGetAttribute);
    int32_t mode = CUBLASLT_POINTER_MODE_HOST;
    size_t written = 0;
    if (get && (get(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode, &written) != CUBLAS_STATUS_SUCCESS ||
                written != sizeof mode))
        mode = CUBLASLT_POINTER_MODE_HOST;
    /* alpha: host only in host mode; beta: host in host mode and
     * ALPHA_DEVICE_VECTOR_BETA_HOST, not read under _BETA_ZERO */
    int alpha_dev = mode != CUBLASLT_POINTER_MODE_HOST;
    int beta_dev = mode == CUBLASLT_POINTER_MODE_DEVICE || mode == CUBLASLT_POINTER_MODE_DEVICE_VECTOR;
    struct dc_lib_arg a[7 + N_LT_ATTRS] = {
        ARG("alpha", alpha_dev ? alpha : NULL), ARG("A", A), ARG("B", B), ARG("beta", beta_dev ? beta : NULL),
        ARG("C", C), ARG("D", D), ARG("workspace", workspaceSize ? workspace : NULL),
    };
    unsigned n = 7;
    for (size_t i = 0; get && i < N_LT_ATTRS; i++) {
        void *p = NULL;
        written = 0;
        if (get(desc, lt_pointer_attrs[i].attr, &p, sizeof p, &written) == CUBLAS_STATUS_SUCCESS &&
            written == sizeof p && p)
            a[n++] = (struct dc_lib_arg)ARG(lt_pointer_attrs[i].name, p);
    }
    dc_lib_check("cublasLtMatmul", dc_stream_device((CUstream)stream), P(stream), a, n);
}

LIB_HOOK(cublasStatus_t, CUBLASWINAPI, cublasLtMatmul,
    (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
     cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
     cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
     void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream),
    (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo, workspace,
     workspaceSizeInBytes, stream),
    CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_SUCCESS,
    (lt_check(computeDesc, alpha, A, B, beta, C, D, workspace, workspaceSizeInBytes, stream)))
