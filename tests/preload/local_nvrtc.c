/* A library that compiles its kernel with NVRTC, its libnvrtc.so.13 its own
 * dependency (nvrtc_local.sh): a program loads it RTLD_LOCAL (dlopen's
 * default, ctypes.CDLL), so libnvrtc is in no global scope.  Its kernel's host
 * twin is in liblocal_twin.so.
 *
 * local_run(cross): compiles SRC (an extern "C" kernel: its cubin's
 * parameter records give sizes only), loads the cubin on device 0 and sets
 * out[i] = 7 * in[i] for 100 ones through cuLaunchKernel; returns the sum
 * (700), or -1000 - error when a call fails (NVRTC's errors: -2000 -
 * error).  With cross != 0 it then launches the kernel again on device 0
 * with `in` on device 1 (a device_mismatch, param 1), without waiting for
 * it. */
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

static const char SRC[] = "extern \"C\" __global__ void nvrtc_scale(int *out, const int *in, int n)\n"
                          "{\n"
                          "    int i = threadIdx.x;\n"
                          "    if (i < n)\n"
                          "        out[i] = 7 * in[i];\n"
                          "}\n";

#define CK(x)                                                                       \
    do {                                                                            \
        CUresult e_ = (x);                                                          \
        if (e_ != CUDA_SUCCESS) {                                                   \
            fprintf(stderr, "local_run: %s: %d\n", #x, (int)e_);                   \
            return -1000 - (int)e_;                                                 \
        }                                                                           \
    } while (0)
#define NV(x)                                                                       \
    do {                                                                            \
        nvrtcResult e_ = (x);                                                       \
        if (e_ != NVRTC_SUCCESS) {                                                  \
            fprintf(stderr, "local_run: %s: %s\n", #x, nvrtcGetErrorString(e_));   \
            return -2000 - (int)e_;                                                 \
        }                                                                           \
    } while (0)

int local_run(int cross);
int local_run(int cross)
{
    nvrtcProgram prog;
    const char *opts[] = { "--gpu-architecture=sm_80" };
    size_t size = 0;
    NV(nvrtcCreateProgram(&prog, SRC, "nvrtc_scale.cu", 0, NULL, NULL));
    NV(nvrtcCompileProgram(prog, 1, opts));
    NV(nvrtcGetCUBINSize(prog, &size));
    char *cubin = malloc(size ? size : 1);
    if (!cubin)
        return -3000;
    NV(nvrtcGetCUBIN(prog, cubin));
    NV(nvrtcDestroyProgram(&prog));

    const int n = 100;
    int host[100];
    CUdevice d0, d1;
    CUcontext c0, c1;
    CUmodule mod;
    CUfunction f;
    CUdeviceptr in, out, far;
    CK(cuInit(0));
    CK(cuDeviceGet(&d0, 0));
    CK(cuDeviceGet(&d1, 1));
    CK(cuDevicePrimaryCtxRetain(&c0, d0));
    CK(cuDevicePrimaryCtxRetain(&c1, d1));
    CK(cuCtxSetCurrent(c0));
    CK(cuModuleLoadData(&mod, cubin));
    CK(cuModuleGetFunction(&f, mod, "nvrtc_scale"));
    for (int i = 0; i < n; i++)
        host[i] = 1;
    CK(cuMemAlloc(&in, sizeof host));
    CK(cuMemAlloc(&out, sizeof host));
    CK(cuMemcpyHtoD(in, host, sizeof host));
    int count = n;
    void *args[] = { &out, &in, &count };
    CK(cuLaunchKernel(f, 1, 1, 1, (unsigned)n, 1, 1, 0, NULL, args, NULL));
    CK(cuMemcpyDtoH(host, out, sizeof host));
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += host[i];
    if (cross) {
        CK(cuCtxSetCurrent(c1));
        CK(cuMemAlloc(&far, sizeof host));
        CK(cuCtxSetCurrent(c0));
        void *cross_args[] = { &out, &far, &count };
        CK(cuLaunchKernel(f, 1, 1, 1, (unsigned)n, 1, 1, 0, NULL, cross_args, NULL));
    }
    free(cubin);
    return sum;
}
