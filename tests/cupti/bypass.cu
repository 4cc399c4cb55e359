// bypass: kernel launches that reach the driver by a path the interposer does
// not hook.  cuLaunchKernel comes from the C library's own dlsym, obtained
// with dlvsym on libc.so.6 (the interposer hooks the dlsym a program links
// to, and cuGetProcAddress, not this one), on a dlopen'ed libcuda.so.1; it
// launches
// `scale` on cuda:0 with a buffer allocated (cudaMalloc) on cuda:1.  Only
// CUPTI's driver callbacks can see it.  Prints the launch's result and the
// synchronisation's (the sim faults the launch: the buffer is not accessible
// from cuda:0); exit status 0 whatever devcheck does.
// With the argument `gpa` the C library's dlsym gives cuGetProcAddress_v2
// instead, and cuLaunchKernel comes from it: a loader that resolves its
// driver table that way makes a call past the hooks (cuGetProcAddress_v2)
// before its first launch.
// With the argument `rt` it launches through cudaLaunchKernel from the C
// library's dlsym on libcudart.so.13 instead: past the interposer's runtime
// hook, but the runtime's own cuLaunchKernel is the interposer's (it found
// the driver through the dlsym and cuGetProcAddress the interposer wraps),
// so with backend=both the launch is the interposer's, checked once.
#include <cstdio>
#include <dlfcn.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "scale.cuh"

int main(int argc, char **argv)
{
    bool rt = argc > 1 && argv[1][0] == 'r';
    bool gpa = argc > 1 && argv[1][0] == 'g';
    enum { N = 256 };
    float *x = nullptr;
    if (cudaSetDevice(1) != cudaSuccess || cudaMalloc(&x, N * sizeof *x) != cudaSuccess) {
        printf("bypass: no cuda:1\n");
        return 1;
    }
    cudaSetDevice(0);
    cudaFunction_t f = nullptr;
    if (cudaGetFuncBySymbol(&f, (const void *)scale) != cudaSuccess) {
        printf("bypass: cudaGetFuncBySymbol failed\n");
        return 1;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    typedef void *(*dlsym_fn)(void *, const char *);
    dlsym_fn libc_dlsym = libc ? (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.34") : nullptr;
    if (!libc_dlsym && libc)
        libc_dlsym = (dlsym_fn)dlvsym(libc, "dlsym", "GLIBC_2.2.5");
    int n = N;
    void *args[] = { &x, &n };
    if (rt) {
        void *hr = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD);
        typedef cudaError_t (*rt_launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
        rt_launch_fn rl = hr && libc_dlsym ? (rt_launch_fn)libc_dlsym(hr, "cudaLaunchKernel") : nullptr;
        if (!rl) {
            printf("bypass: no cudaLaunchKernel from the C library's dlsym\n");
            return 1;
        }
        cudaError_t e = rl((const void *)scale, dim3(1), dim3(N), args, 0, nullptr);
        cudaError_t s = cudaDeviceSynchronize();
        printf("bypass: runtime launch %s, synchronize %s\n", cudaGetErrorName(e), cudaGetErrorName(s));
        return 0;
    }
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    PFN_cuLaunchKernel_v4000 launch = nullptr;
    if (gpa) {
        PFN_cuGetProcAddress_v12000 get =
            h && libc_dlsym ? (PFN_cuGetProcAddress_v12000)libc_dlsym(h, "cuGetProcAddress_v2") : nullptr;
        void *pfn = nullptr;
        if (get && get("cuLaunchKernel", &pfn, 4000, CU_GET_PROC_ADDRESS_DEFAULT, nullptr) == CUDA_SUCCESS)
            launch = (PFN_cuLaunchKernel_v4000)pfn;
    } else if (h && libc_dlsym) {
        launch = (PFN_cuLaunchKernel_v4000)libc_dlsym(h, "cuLaunchKernel");
    }
    if (!launch) {
        printf("bypass: no cuLaunchKernel from the C library's dlsym\n");
        return 1;
    }
    CUresult r = launch((CUfunction)f, 1, 1, 1, N, 1, 1, 0, nullptr, args, nullptr);
    cudaError_t s = cudaDeviceSynchronize();
    printf("bypass: launch %d, synchronize %s\n", (int)r, cudaGetErrorName(s));
    return 0;
}
