// peer_again: correct multi-GPU code whose peer access is enabled again.
// cuda:0 enables peer access to cuda:1 (cudaDeviceEnablePeerAccess); a second
// context is created on cuda:0 and destroyed (devcheck then forgets cuda:0's
// peer links, as it forgets its memory); the program enables the access again
// and gets cudaErrorPeerAccessAlreadyEnabled (the primary context's access
// lives on), then launches `scale` on cuda:0 with cuda:1's memory: correct
// code, a peer_access warning (legal access) on every detection path, never a
// device_mismatch (the interposer records an access that is already enabled;
// so must CUPTI's exit callback).  Prints one line; exit status 0.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "scale.cuh"

int main()
{
    enum { N = 256 };
    float *x = nullptr;
    CUdevice d0;
    CUcontext c = nullptr;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&x, N * sizeof *x) != cudaSuccess ||
        cudaSetDevice(0) != cudaSuccess || cudaDeviceEnablePeerAccess(1, 0) != cudaSuccess ||
        cuDeviceGet(&d0, 0) != CUDA_SUCCESS || cuCtxCreate(&c, nullptr, 0, d0) != CUDA_SUCCESS ||
        cuCtxDestroy(c) != CUDA_SUCCESS || cudaSetDevice(0) != cudaSuccess) {
        printf("peer_again: setup failed\n");
        return 1;
    }
    cudaError_t again = cudaDeviceEnablePeerAccess(1, 0);
    (void)cudaGetLastError();
    scale<<<1, N>>>(x, N);
    cudaError_t s = cudaDeviceSynchronize();
    printf("peer_again: enable again %s, synchronize %s\n", cudaGetErrorName(again), cudaGetErrorName(s));
    return 0;
}
