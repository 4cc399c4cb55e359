// Kernels without types (issue 28), in C through the driver API: the cubin
// of tests/e2e/untyped.cu (plain, or built with -G) loaded with
// cuModuleLoadData from the heap, scale_rows launched on cuda:0 with x in
// (CASE):
//   other     cuda:1's memory (no peer access): the sim faults, as a GPU does
//   pageable  malloc'd host memory (a GPU without HMM faults; the sim's twin reads it)
//   pinned    cuMemAllocHost memory (legal)
//   correct   cuda:0's memory
//   integer   cuda:0's memory, and m (long long) equal to an address inside cuda:1's memory
//   struct    cuda:0's memory, and s.p a stale pointer to cuda:1's memory
// With `nvrtc:SOURCE` for CUBIN, the image is the cubin NVRTC compiles from
// SOURCE (libnvrtc linked: its entry points bound by symbol version).
// Prints `untyped_prog: synchronize: NAME` and the first result; exits 0.
//   untyped_prog CUBIN|nvrtc:SOURCE CASE
#include <cuda.h>
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct untyped_s {
    float *p;
    long long n;
};

// the kernel's host twin: the sim runs it for the launch
extern "C" void simcuda_twin_scale_rows(void **args, const unsigned grid[3], const unsigned block[3])
{
    int n = *(int *)args[0];
    float a = *(float *)args[1];
    float *x = *(float **)args[2];
    long long m = *(long long *)args[3];
    const struct untyped_s *s = (const struct untyped_s *)args[4];
    for (unsigned i = 0; i < grid[0] * block[0] && (int)i < n; i++)
        x[i] = x[i] * a + (float)(m & 1) + (float)(s->n & 1);
}

#define CK(call)                                                                   \
    do {                                                                           \
        int e_ = (int)(call);                                                      \
        if (e_) {                                                                  \
            printf("untyped_prog: %s failed: %d\n", #call, e_);                   \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3) {
        printf("usage: untyped_prog CUBIN CASE\n");
        return 2;
    }
    const char *c = argv[2];
    int nvrtc = !strncmp(argv[1], "nvrtc:", 6);
    FILE *fp = fopen(nvrtc ? argv[1] + 6 : argv[1], "rb");
    if (!fp) {
        printf("untyped_prog: cannot open %s\n", argv[1]);
        return 1;
    }
    char *image = (char *)calloc(1, 1 << 22);
    size_t got = image ? fread(image, 1, (1 << 22) - 1, fp) : 0;
    fclose(fp);
    if (!got)
        return 1;
    if (nvrtc) {                        // the source in, its cubin out (into the same buffer)
        nvrtcProgram prog;
        const char *opts[] = { "--gpu-architecture=sm_80" };
        size_t size = 0;
        CK(nvrtcCreateProgram(&prog, image, "untyped.cu", 0, NULL, NULL));
        CK(nvrtcCompileProgram(prog, 1, opts));
        CK(nvrtcGetCUBINSize(prog, &size));
        if (size > (1 << 22))
            return 1;
        CK(nvrtcGetCUBIN(prog, image));
        CK(nvrtcDestroyProgram(&prog));
    }
    const int n = 8;
    float host[n];
    for (int i = 0; i < n; i++)
        host[i] = (float)i;
    CUdevice d0, d1;
    CUcontext c0, c1;
    CK(cuInit(0));
    CK(cuDeviceGet(&d0, 0));
    CK(cuDeviceGet(&d1, 1));
    CK(cuDevicePrimaryCtxRetain(&c0, d0));
    CK(cuDevicePrimaryCtxRetain(&c1, d1));
    CK(cuCtxSetCurrent(c1));
    CUdeviceptr on1;
    CK(cuMemAlloc(&on1, 4096));
    CK(cuMemcpyHtoD(on1, host, sizeof host));
    CK(cuCtxSetCurrent(c0));
    CUmodule mod;
    CUfunction fn;
    CK(cuModuleLoadData(&mod, image));
    CK(cuModuleGetFunction(&fn, mod, "scale_rows"));
    CUdeviceptr on0;
    CK(cuMemAlloc(&on0, 4096));
    CK(cuMemcpyHtoD(on0, host, sizeof host));
    float *pageable = (float *)malloc(sizeof host), *pinned = NULL;
    memcpy(pageable, host, sizeof host);
    CK(cuMemAllocHost((void **)&pinned, sizeof host));
    memcpy(pinned, host, sizeof host);
    void *x = (void *)(uintptr_t)on0;
    long long m = 0;
    struct untyped_s s = { NULL, 2 };
    if (!strcmp(c, "other"))
        x = (void *)(uintptr_t)on1;
    else if (!strcmp(c, "pageable"))
        x = pageable;
    else if (!strcmp(c, "pinned"))
        x = pinned;
    else if (!strcmp(c, "integer"))
        m = (long long)(on1 + 64);      // even: the kernel adds 0
    else if (!strcmp(c, "struct"))
        s.p = (float *)(uintptr_t)(on1 + 128);
    int cnt = n;
    float a = 2.0f;
    void *params[] = { &cnt, &a, &x, &m, &s };
    CK(cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, NULL, params, NULL));   // the launch
    CUresult r = cuCtxSynchronize();
    const char *name = "?";
    cuGetErrorName(r, &name);
    printf("untyped_prog: synchronize: %s\n", name);
    if (r == CUDA_SUCCESS) {
        float out[n];
        if (x == pageable || x == pinned)
            memcpy(out, x, sizeof out);
        else {
            CK(cuCtxSetCurrent(x == (void *)(uintptr_t)on1 ? c1 : c0));
            CK(cuMemcpyDtoH(out, (CUdeviceptr)(uintptr_t)x, sizeof out));
        }
        printf("untyped_prog: result[1]=%g result[7]=%g\n", out[1], out[7]);
    }
    free(pageable);
    free(image);
    return 0;
}
