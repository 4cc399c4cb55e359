/* The CUDA 13 `<<<>>>` launch entry points and nvcc's registration calls.
 * The toolkit declares them only for C++ (crt/device_functions.h under
 * __CUDACC__, crt/host_runtime.h), so a C file cannot see them.  These prototypes use the toolkit's own types and are checked against
 * the toolkit's declarations by preload/rt_proto_check.cu, which nvcc compiles
 * on every build: a drift is a "conflicting declaration" error there. */
#ifndef DEVCHECK_RT_PROTO_H
#define DEVCHECK_RT_PROTO_H
#include <cuda_runtime_api.h>
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                         void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                              void **args, size_t sharedMem, cudaStream_t stream);
/* nvcc's registration of a translation unit's fatbin and kernels
 * (crt/host_runtime.h, C++ only). */
void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);
void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);
void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                      const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                      dim3 *bDim, dim3 *gDim, int *wSize);
#ifdef __cplusplus
}
#endif
#endif
