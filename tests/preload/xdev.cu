// Cross-device launches for the interposer tests.  Usage: xdev MODE
//   runtime  <<<>>> on device 0 with a buffer of device 1 (param 1)
//   driver   the same kernel through cuLaunchKernel, obtained with
//            cuGetProcAddress (itself from dlsym on libcuda.so.1)
//   peer     device 0 enabled peer access to device 1, then the <<<>>> launch
//   clean    both buffers on device 0
//   fail     the runtime launch, then the program fails on its own (exit 3)
// Prints "xdev: done" on stdout and exits 0 (3 for fail).  Results are not
// checked: the cross-device launches fault on a real GPU and on the sim.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

__global__ void xdev_add(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += b[i];
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "xdev: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

static int driver_launch(float *a, const float *b, int n)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) { fprintf(stderr, "xdev: no libcuda.so.1\n"); return 1; }
    typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress_v2");
    if (!gpa) { fprintf(stderr, "xdev: no cuGetProcAddress_v2\n"); return 1; }
    void *p = NULL;
    CUdriverProcAddressQueryResult st;
    if (gpa("cuLaunchKernel", &p, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st) != CUDA_SUCCESS || !p) {
        fprintf(stderr, "xdev: cuGetProcAddress(cuLaunchKernel) failed\n"); return 1;
    }
    typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, CUstream, void **, void **);
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)xdev_add));
    void *args[] = { &a, &b, &n };
    CUresult r = ((launch_t)p)((CUfunction)f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    (void)r;
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    const int n = 32;
    float *a = NULL, *b = NULL;
    int other = strcmp(mode, "clean") ? 1 : 0;
    CK(cudaSetDevice(other));
    CK(cudaMalloc(&b, n * sizeof(float)));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&a, n * sizeof(float)));
    if (!strcmp(mode, "peer"))
        CK(cudaDeviceEnablePeerAccess(1, 0));
    if (!strcmp(mode, "driver")) {
        if (driver_launch(a, b, n))
            return 1;
    } else {
        xdev_add<<<1, 32>>>(a, b, n);
    }
    cudaDeviceSynchronize();
    printf("xdev: done\n");
    return strcmp(mode, "fail") ? 0 : 3;
}
