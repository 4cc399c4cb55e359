/* cuBLASLt's handle, which a cuBLAS handle starts with: "a cuBLAS handle
 * can be cast to cublasLtHandle_t" (cuBLASLt documentation, cublasLtHandle_t),
 * and PyTorch does so (at::cuda::getCurrentCUDABlasLtHandle). */
#ifndef SIM_LIBS_CUBLAS_HANDLE_H
#define SIM_LIBS_CUBLAS_HANDLE_H
#include <stdint.h>

#define SB_LT_MAGIC 0x53424c54u

struct cublasLtContext {
    uint32_t magic;             /* SB_LT_MAGIC while alive */
};
#endif
