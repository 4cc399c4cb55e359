/* The CUDA 13 `<<<>>>` launch entry points.  The toolkit declares them only
 * for C++ under __CUDACC__ (crt/device_functions.h), so a C file cannot see
 * them.  These prototypes use the toolkit's own types and are checked against
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
#ifdef __cplusplus
}
#endif
#endif
