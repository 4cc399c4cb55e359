// driver_api: a Triton-style launcher on the driver API.
//
// Every driver entry point comes from cuGetProcAddress on a dlopen'ed
// libcuda.so.1 -- the way statically linked cudart and cuBLAS reach the
// driver -- or, built with -DVIA_RUNTIME, from the runtime's
// cudaGetDriverEntryPointByVersion, as PyTorch does.  The kernel is a module
// loaded from an embedded fatbin (cuModuleLoadData) and launched with
// cuLaunchKernel.
//
// Field reports: state created on the default device -- a KV cache allocated
// while cuda:0 was current, outside the device map, appended to by a layer on
// cuda:1.  Custom kernels (Triton, extensions) do no device check and fault
// with "an illegal memory access was encountered" at a later call.
// Fix: create the cache on the layer's device.
//
// Build: buggy as driver_api, fixed (-DFIXED) as driver_api_fixed; with
// -DVIA_RUNTIME as driver_api_rt and driver_api_rt_fixed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#ifdef VIA_RUNTIME
#define SAMPLE_NAME "driver_api_rt"
#else
#define SAMPLE_NAME "driver_api"
#endif

extern "C" const char driver_api_fatbin[]; // driver_api_image.S

enum { SLOTS = 8, N = 64, POS = 5 };

// Host twin of kv_append (driver_api_kernel.cu) for the sim.
extern "C" void simcuda_twin_kv_append(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *cache = *(float **)args[0];
    const float *kv = *(const float **)args[1];
    int pos = *(int *)args[2], n = *(int *)args[3];
    for (unsigned i = 0; i < grid[0] * block[0]; i++)
        if (i < (unsigned)n)
            cache[pos * n + i] = kv[i];
}

// The driver entry points, each at the ABI version its PFN type names.
static PFN_cuGetErrorName_v6000 pcuGetErrorName;
static PFN_cuInit_v2000 pcuInit;
static PFN_cuDeviceGetCount_v2000 pcuDeviceGetCount;
static PFN_cuDeviceGet_v2000 pcuDeviceGet;
static PFN_cuDevicePrimaryCtxRetain_v7000 pcuDevicePrimaryCtxRetain;
static PFN_cuCtxSetCurrent_v4000 pcuCtxSetCurrent;
static PFN_cuCtxSynchronize_v2000 pcuCtxSynchronize;
static PFN_cuMemAlloc_v3020 pcuMemAlloc;
static PFN_cuMemsetD32_v3020 pcuMemsetD32;
static PFN_cuMemcpyHtoD_v3020 pcuMemcpyHtoD;
static PFN_cuMemcpyDtoH_v3020 pcuMemcpyDtoH;
static PFN_cuModuleLoadData_v2000 pcuModuleLoadData;
static PFN_cuModuleGetFunction_v2000 pcuModuleGetFunction;
static PFN_cuLaunchKernel_v4000 pcuLaunchKernel;

static void fail(const char *what, CUresult r)
{
    const char *name = "?";
    if (pcuGetErrorName)
        pcuGetErrorName(r, &name);
    printf("%s: FAILED: %s: %s (%d)\n", SAMPLE_NAME, what, name, (int)r);
    exit(1);
}
#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) fail(#call, r_); } while (0)

#ifdef VIA_RUNTIME
// PyTorch's way: the runtime hands out driver entry points.
#define GET(name, version) do {                                                        \
        cudaDriverEntryPointQueryResult found;                                         \
        cudaError_t e_ = cudaGetDriverEntryPointByVersion(#name, (void **)&p##name,    \
                                                          version, cudaEnableDefault, &found); \
        if (e_ != cudaSuccess || found != cudaDriverEntryPointSuccess || !p##name)     \
            fail("cudaGetDriverEntryPointByVersion(" #name ")", CUDA_ERROR_NOT_FOUND); \
    } while (0)
static void load_driver(void)
{
#else
// Static cudart's and cuBLAS's way: libcuda.so.1's cuGetProcAddress.
#define GET(name, version) do {                                                        \
        CUdriverProcAddressQueryResult found;                                          \
        CK(getproc(#name, (void **)&p##name, version, CU_GET_PROC_ADDRESS_DEFAULT, &found)); \
        if (found != CU_GET_PROC_ADDRESS_SUCCESS || !p##name)                          \
            fail("cuGetProcAddress(" #name ")", CUDA_ERROR_NOT_FOUND);                 \
    } while (0)
static void load_driver(void)
{
    void *libcuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!libcuda) {
        printf("%s: FAILED: dlopen libcuda.so.1: %s\n", SAMPLE_NAME, dlerror());
        exit(1);
    }
    PFN_cuGetProcAddress_v12000 getproc;
    *(void **)&getproc = dlsym(libcuda, "cuGetProcAddress_v2");
    if (!getproc) {
        printf("%s: FAILED: no cuGetProcAddress_v2 in libcuda.so.1\n", SAMPLE_NAME);
        exit(1);
    }
#endif
    GET(cuGetErrorName, 6000);
    GET(cuInit, 2000);
    GET(cuDeviceGetCount, 2000);
    GET(cuDeviceGet, 2000);
    GET(cuDevicePrimaryCtxRetain, 7000);
    GET(cuCtxSetCurrent, 4000);
    GET(cuCtxSynchronize, 2000);
    GET(cuMemAlloc, 3020);
    GET(cuMemsetD32, 3020);
    GET(cuMemcpyHtoD, 3020);
    GET(cuMemcpyDtoH, 3020);
    GET(cuModuleLoadData, 2000);
    GET(cuModuleGetFunction, 2000);
    GET(cuLaunchKernel, 4000);
}

int main()
{
    static float kv_h[N], got[SLOTS * N];
    for (int i = 0; i < N; i++)
        kv_h[i] = 1.5f * i;

    load_driver();
    CK(pcuInit(0));
    int ndev = 0;
    CK(pcuDeviceGetCount(&ndev));
    if (ndev < 2) {
        printf("%s: FAILED: needs 2 GPUs, found %d\n", SAMPLE_NAME, ndev);
        return 1;
    }
    CUdevice dev0, dev1;
    CUcontext ctx0, ctx1;
    CK(pcuDeviceGet(&dev0, 0));
    CK(pcuDeviceGet(&dev1, 1));
    CK(pcuDevicePrimaryCtxRetain(&ctx0, dev0));
    CK(pcuDevicePrimaryCtxRetain(&ctx1, dev1));

    // The KV cache: SLOTS rows of N floats, zeroed.
    CUdeviceptr cache;
#ifdef FIXED
    CK(pcuCtxSetCurrent(ctx1)); // FIX: create the cache on the layer's device
#else
    CK(pcuCtxSetCurrent(ctx0)); // BUG: the cache is created on the default device, cuda:0
#endif
    CK(pcuMemAlloc(&cache, sizeof got));
    CK(pcuMemsetD32(cache, 0, SLOTS * N));

    // The layer on cuda:1: its new key/value row, appended at slot POS.
    CUdeviceptr kv;
    CK(pcuCtxSetCurrent(ctx1));
    CK(pcuMemAlloc(&kv, sizeof kv_h));
    CK(pcuMemcpyHtoD(kv, kv_h, sizeof kv_h));
    CUmodule mod;
    CUfunction fn;
    CK(pcuModuleLoadData(&mod, driver_api_fatbin));
    CK(pcuModuleGetFunction(&fn, mod, "kv_append"));
    int pos = POS, n = N;
    void *params[] = { &cache, &kv, &pos, &n };
    CK(pcuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
    CK(pcuCtxSynchronize());
    CK(pcuMemcpyDtoH(got, cache, sizeof got));

    for (int i = 0; i < SLOTS * N; i++) {
        float want = i / N == POS ? kv_h[i % N] : 0.0f;
        if (got[i] != want) {
            printf("%s: WRONG result at %d: got %g, expected %g\n", SAMPLE_NAME, i,
                   (double)got[i], (double)want);
            return 1;
        }
    }
    printf("%s: OK (%d values checked)\n", SAMPLE_NAME, SLOTS * N);
    return 0;
}
