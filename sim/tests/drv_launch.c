/* Kernels from nvcc-built images run through host twins on the simulated
 * GPUs, and launches fault like a real GPU (SIMCUDA_DEVICES=4).
 *
 * Checks: cuFuncGetParamInfo / cuKernelGetParamInfo layouts; a cubin loaded
 * with cuModuleLoadData and a fatbin loaded with cuLibraryLoadData compute
 * through their twins, with kernelParams and with `extra`; a launch whose
 * pointer argument points at memory the launch device cannot access does not
 * run, a twin that goes there through a pointer inside a struct passed by
 * value faults at that access (its write never lands), and
 * CUDA_ERROR_ILLEGAL_ADDRESS surfaces at the next synchronizing call and
 * stays; a stale pointer in a struct the twin does not follow, and an end
 * pointer one past an allocation, never fault; peer access, pool access
 * and cuMemSetAccess grants make the same launch legal; managed and pinned
 * memory are reachable everywhere; pageable host memory only with
 * SIMCUDA_HMM=1; a launch into another device's stream fails. */
#include "drv_check.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#ifndef KDIR
#error KDIR must name the directory holding drv_kernels.cubin / .fatbin
#endif

struct drv_pair { void *a, *b; };

/* a word that is no mapped address (a page mapped, then unmapped): data,
 * not a pointer, for the fault check */
static uintptr_t NOT_AN_ADDRESS;

/* ---- host twins, found by the driver with dlsym ---- */
static int twin_runs;

void simcuda_twin_mixed(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *p = *(float **)args[0];
    int n = *(int *)args[1];
    struct drv_pair s = *(struct drv_pair *)args[2];
    double d = *(double *)args[3];
    long total = (long)grid[0] * block[0];
    for (long i = 0; i < total && i < n; i++)
        p[i] = (float)(d * i);
    if (s.a)
        *(int *)s.a = n;
    twin_runs++;
}

void simcuda_twin_touch(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid; (void)block;
    int *p = *(int **)args[0];
    if ((uintptr_t)p != NOT_AN_ADDRESS)
        *p = *(int *)args[1];
    twin_runs++;
}

void simcuda_twin_fill(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *x = *(float **)args[0];
    float v = *(float *)args[1];
    int n = *(int *)args[2];
    long total = (long)grid[0] * block[0];
    for (long i = 0; i < total && i < n; i++)
        x[i] = v;
    twin_runs++;
}


static CUcontext ctx[4];
static CUfunction f_touch[4], f_mixed;
static void reset_device(int d);

/* Launches touch(p, v) from context `from`, synchronizes, and reports
 * whether the twin ran and what the synchronization returned. */
static CUresult touch_from(int from, CUdeviceptr p, int v, int *ran)
{
    cuCtxSetCurrent(ctx[from]);
    int before = twin_runs;
    void *args[] = { &p, &v };
    CUresult r = cuLaunchKernel(f_touch[from], 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
    if (r != CUDA_SUCCESS)
        return r;
    *ran = twin_runs != before;
    return cuCtxSynchronize();
}

/* A faulted context stays faulted; a primary context reset clears it. */
static void expect_fault(int from, CUdeviceptr p, const char *what)
{
    int ran = -1;
    CUresult r = touch_from(from, p, 7, &ran);
    if (r != CUDA_ERROR_ILLEGAL_ADDRESS || ran) {
        fprintf(stderr, "%s: expected a fault (got %s, twin ran=%d)\n", what, drv_errname(r), ran);
        drv_failures++;
    }
    CUdeviceptr q;
    EXPECT(cuMemAlloc(&q, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    reset_device(from);
}

static void expect_runs(int from, CUdeviceptr p, const char *what)
{
    int ran = -1;
    CUresult r = touch_from(from, p, 7, &ran);
    if (r != CUDA_SUCCESS || ran != 1) {
        fprintf(stderr, "%s: expected the twin to run (got %s, ran=%d)\n", what, drv_errname(r), ran);
        drv_failures++;
        if (r == CUDA_ERROR_ILLEGAL_ADDRESS)
            reset_device(from);
    }
}

static void *cubin;

/* The test module in ctx[d] (current afterwards): f_touch[d], and f_mixed
 * for device 0. */
static CUmodule load_device(int d)
{
    CUmodule m;
    MUST(cuCtxSetCurrent(ctx[d]));
    MUST(cuModuleLoadData(&m, cubin));
    MUST(cuModuleGetFunction(&f_touch[d], m, "_Z5touchPii"));
    if (d == 0)
        MUST(cuModuleGetFunction(&f_mixed, m, "_Z5mixedPfi8drv_paird"));
    return m;
}

/* A primary context reset unloads the context's modules, as a real driver
 * does: the test loads its module again (the current context kept). */
static void reset_device(int d)
{
    CUcontext cur = NULL;
    (void)cuCtxGetCurrent(&cur);
    MUST(cuDevicePrimaryCtxReset(d));
    (void)load_device(d);
    MUST(cuCtxSetCurrent(cur));
}

static void load_modules(void)
{
    size_t len;
    cubin = drv_slurp(KDIR, "drv_kernels.cubin", &len);
    for (int d = 0; d < 4; d++) {
        CUmodule m = load_device(d);
        CUfunction none;
        EXPECT(cuModuleGetFunction(&none, m, "_Z7missingv"), CUDA_ERROR_NOT_FOUND);
    }
    /* from a file, and a fatbin through cuModuleLoadFatBinary */
    CUmodule mf;
    OK(cuModuleLoad(&mf, KDIR "/drv_kernels.cubin"));
    CUfunction ff;
    OK(cuModuleGetFunction(&ff, mf, "_Z5touchPii"));
    OK(cuModuleUnload(mf));
    EXPECT(cuModuleGetFunction(&ff, mf, "_Z5touchPii"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleLoad(&mf, KDIR "/no-such-file.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
    void *fat = drv_slurp(KDIR, "drv_kernels.fatbin", &len);
    OK(cuModuleLoadFatBinary(&mf, fat));
    OK(cuModuleGetFunction(&ff, mf, "_Z5mixedPfi8drv_paird"));
    OK(cuModuleUnload(mf));
    EXPECT(cuModuleLoadData(&mf, "this is no image"), CUDA_ERROR_INVALID_IMAGE);
    free(fat);
}

static void param_info(void)
{
    /* (float*, int, struct {void *a, *b;}, double) */
    static const size_t want[4][2] = { { 0, 8 }, { 8, 4 }, { 16, 16 }, { 32, 8 } };
    for (size_t i = 0; i < 4; i++) {
        size_t off = 99, size = 99;
        OK(cuFuncGetParamInfo(f_mixed, i, &off, &size));
        EQ(off, want[i][0]);
        EQ(size, want[i][1]);
    }
    size_t off, size;
    EXPECT(cuFuncGetParamInfo(f_mixed, 4, &off, &size), CUDA_ERROR_INVALID_VALUE);
    const char *name = NULL;
    OK(cuFuncGetName(&name, f_mixed));
    TRUE(name && !strcmp(name, "_Z5mixedPfi8drv_paird"));
}

static void compute(void)
{
    enum { N = 1000 };
    MUST(cuCtxSetCurrent(ctx[0]));
    CUdeviceptr p, flag;
    MUST(cuMemAlloc(&p, N * sizeof(float)));
    MUST(cuMemAlloc(&flag, sizeof(int)));
    OK(cuMemsetD32(flag, 0, 1));
    int n = N;
    struct drv_pair s = { (void *)(uintptr_t)flag, NULL };
    double d = 0.5;
    void *args[] = { &p, &n, &s, &d };
    OK(cuLaunchKernel(f_mixed, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    float out[N];
    OK(cuMemcpyDtoH(out, p, sizeof out));
    int good = 1;
    for (int i = 0; i < N; i++)
        good &= out[i] == (float)(0.5 * i);
    TRUE(good);
    int fl = 0;
    OK(cuMemcpyDtoH(&fl, flag, sizeof fl));
    EQ(fl, N);

    /* the same launch with the arguments packed in `extra` */
    unsigned char buf[40];
    memset(buf, 0, sizeof buf);
    d = 2.0;
    memcpy(buf + 0, &p, 8);
    memcpy(buf + 8, &n, 4);
    memcpy(buf + 16, &s, 16);
    memcpy(buf + 32, &d, 8);
    size_t bsize = sizeof buf;
    void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &bsize, CU_LAUNCH_PARAM_END };
    OK(cuLaunchKernel(f_mixed, (N + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, NULL, extra));
    OK(cuMemcpyDtoH(out, p, sizeof out));
    TRUE(out[10] == 20.0f && out[999] == 1998.0f);
    EXPECT(cuLaunchKernel(f_mixed, 1, 1, 1, 1, 1, 1, 0, NULL, args, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f_mixed, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel((CUfunction)(uintptr_t)0x1234, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);

    /* cuLaunchKernelEx and cooperative launches */
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 4; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = 256; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    d = 3.0;
    OK(cuLaunchKernelEx(&cfg, f_mixed, args, NULL));
    OK(cuMemcpyDtoH(out, p, sizeof out));
    TRUE(out[999] == 2997.0f);
    d = 1.0;
    OK(cuLaunchCooperativeKernel(f_mixed, 4, 1, 1, 256, 1, 1, 0, NULL, args));
    EXPECT(cuLaunchCooperativeKernel(f_mixed, 1000000, 1, 1, 256, 1, 1, 0, NULL, args), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    int nb = 0;
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&nb, f_mixed, 256, 0));
    TRUE(nb > 0);
    int mg = 0, bs = 0;
    OK(cuOccupancyMaxPotentialBlockSize(&mg, &bs, f_mixed, NULL, 0, 0));
    TRUE(mg > 0 && bs > 0 && bs <= 1024);
    OK(cuMemFree(p));
    OK(cuMemFree(flag));
}

static void library(void)
{
    enum { N = 300 };
    size_t len;
    void *fat = drv_slurp(KDIR, "drv_kernels.fatbin", &len);
    CUlibrary lib;
    MUST(cuLibraryLoadData(&lib, fat, NULL, NULL, 0, NULL, NULL, 0));
    free(fat);
    CUkernel k;
    MUST(cuLibraryGetKernel(&k, lib, "_ZN3drv4fillIfEEvPT_S1_i"));
    size_t off, size;
    OK(cuKernelGetParamInfo(k, 1, &off, &size));
    EQ(off, 8);
    EQ(size, 4);
    EXPECT(cuKernelGetParamInfo(k, 3, &off, &size), CUDA_ERROR_INVALID_VALUE);
    /* a CUkernel launches where a CUfunction is expected, in the current context */
    for (int d = 0; d < 4; d++) {
        MUST(cuCtxSetCurrent(ctx[d]));
        CUdeviceptr x;
        MUST(cuMemAlloc(&x, N * sizeof(float)));
        float v = 1.5f + d;
        int n = N;
        void *args[] = { &x, &v, &n };
        OK(cuLaunchKernel((CUfunction)k, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        float out[N];
        OK(cuMemcpyDtoH(out, x, sizeof out));
        TRUE(out[0] == v && out[N - 1] == v);
        CUfunction f;
        OK(cuKernelGetFunction(&f, k));
        v = -1.0f;
        OK(cuLaunchKernel(f, 2, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
        OK(cuMemcpyDtoH(out, x, sizeof out));
        TRUE(out[N / 2] == -1.0f);
        OK(cuMemFree(x));
    }
    /* the library's module view */
    CUmodule lm;
    OK(cuLibraryGetModule(&lm, lib));
    CUfunction lf;
    OK(cuModuleGetFunction(&lf, lm, "_ZN3drv4fillIfEEvPT_S1_i"));
    {
        CUdeviceptr x;
        MUST(cuMemAlloc(&x, 4 * sizeof(float)));
        float v = 9.0f, out[4];
        int n = 4;
        void *args[] = { &x, &v, &n };
        OK(cuLaunchKernel(lf, 1, 1, 1, 4, 1, 1, 0, NULL, args, NULL));
        OK(cuMemcpyDtoH(out, x, sizeof out));
        TRUE(out[3] == 9.0f);
        OK(cuMemFree(x));
    }
    /* no twin: nothing runs, the launch succeeds */
    CUkernel nt;
    MUST(cuLibraryGetKernel(&nt, lib, "_Z6notwinPi"));
    CUdeviceptr y;
    MUST(cuMemAlloc(&y, 4));
    OK(cuMemsetD32(y, 0, 1));
    void *a1[] = { &y };
    int before = twin_runs;
    OK(cuLaunchKernel((CUfunction)nt, 1, 1, 1, 1, 1, 1, 0, NULL, a1, NULL));
    OK(cuCtxSynchronize());
    EQ(twin_runs, before);
    OK(cuMemFree(y));
    OK(cuLibraryUnload(lib));
}

static void faults(int hmm)
{
    CUdeviceptr on1, on2;
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuMemAlloc(&on1, 64));
    MUST(cuCtxSetCurrent(ctx[2]));
    MUST(cuMemAlloc(&on2, 64));

    expect_runs(1, on1, "own device memory");
    expect_fault(0, on1, "device 1 memory from device 0 without peer access");

    /* a twin following a pointer inside a struct passed by value faults
     * there, as the GPU would; what it writes there never lands */
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuMemsetD32(on1, 0, 16));
    MUST(cuCtxSetCurrent(ctx[0]));
    CUdeviceptr p0;
    MUST(cuMemAlloc(&p0, 64));
    int n = 4;
    struct drv_pair s = { (void *)(uintptr_t)on1, NULL };
    double d = 1.0;
    void *args[] = { &p0, &n, &s, &d };
    OK(cuLaunchKernel(f_mixed, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    EXPECT(cuStreamSynchronize(NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuMemcpyDtoH(&n, p0, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
    reset_device(0);
    MUST(cuCtxSetCurrent(ctx[1]));
    int landed = -1;
    OK(cuMemcpyDtoH(&landed, on1, 4));
    EQ(landed, 0);
    /* ... while one it does not follow (s.b, stale), and a pointer one past
     * the end of an allocation, are only data */
    MUST(cuCtxSetCurrent(ctx[0]));
    MUST(cuMemAlloc(&p0, 64));
    CUdeviceptr flag0;
    MUST(cuMemAlloc(&flag0, 4));
    struct drv_pair stale = { (void *)(uintptr_t)flag0, (void *)(uintptr_t)on1 };
    void *sargs[] = { &p0, &n, &stale, &d };
    n = 4;
    OK(cuLaunchKernel(f_mixed, 1, 1, 1, 32, 1, 1, 0, NULL, sargs, NULL));
    OK(cuCtxSynchronize());
    CUdeviceptr end = p0 + 64;
    int before = twin_runs;
    void *eargs[] = { &end, &n };
    NOT_AN_ADDRESS = end;       /* the twin does not write through it */
    OK(cuLaunchKernel(f_touch[0], 1, 1, 1, 1, 1, 1, 0, NULL, eargs, NULL));
    OK(cuCtxSynchronize());
    EQ(twin_runs, before + 1);
    NOT_AN_ADDRESS = 0;
    OK(cuMemFree(flag0));
    OK(cuMemFree(p0));
    /* the reset freed that context's memory; the module is still loaded */

    /* peer access makes it legal, per context */
    MUST(cuCtxSetCurrent(ctx[0]));
    OK(cuCtxEnablePeerAccess(ctx[1], 0));
    expect_runs(0, on1, "device 1 memory from device 0 with peer access");
    int v = 0;
    OK(cuMemcpyDtoH(&v, on1, 4));
    EQ(v, 7);
    expect_fault(0, on2, "device 2 memory from device 0 (peer enabled to 1 only)");

    /* a launch into another device's stream fails */
    CUstream s1;
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuStreamCreate(&s1, 0));
    MUST(cuCtxSetCurrent(ctx[0]));
    void *targs[] = { &on1, &v };
    EXPECT(cuLaunchKernel(f_touch[0], 1, 1, 1, 1, 1, 1, 0, s1, targs, NULL), CUDA_ERROR_INVALID_HANDLE);
    /* ... while a copy into it is fine */
    OK(cuMemcpyDtoHAsync(&v, on1, 4, s1));
    OK(cuStreamDestroy(s1));

    /* VMM: only devices granted by cuMemSetAccess, even the owner */
    CUmemAllocationProp ap;
    memset(&ap, 0, sizeof ap);
    ap.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.location.id = 2;
    size_t gran;
    MUST(cuMemGetAllocationGranularity(&gran, &ap, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va;
    CUmemGenericAllocationHandle h;
    MUST(cuMemAddressReserve(&va, gran, 0, 0, 0));
    MUST(cuMemCreate(&h, gran, &ap, 0));
    MUST(cuMemMap(va, gran, 0, h, 0));
    expect_fault(2, va, "VMM range without any grant, from its owner");
    CUmemAccessDesc g2 = { { CU_MEM_LOCATION_TYPE_DEVICE, 2 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, gran, &g2, 1));
    expect_runs(2, va, "VMM range granted to its owner");
    MUST(cuCtxSetCurrent(ctx[3]));
    OK(cuCtxEnablePeerAccess(ctx[2], 0));
    expect_fault(3, va, "VMM range not granted to device 3 (peer access does not apply)");
    CUmemAccessDesc g3 = { { CU_MEM_LOCATION_TYPE_DEVICE, 3 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, gran, &g3, 1));
    expect_runs(3, va, "VMM range granted to device 3");
    OK(cuMemUnmap(va, gran));
    OK(cuMemRelease(h));
    expect_fault(2, va, "unmapped VMM range");
    OK(cuMemAddressFree(va, gran));

    /* pools: cuMemPoolSetAccess, not peer access */
    CUmemoryPool pool;
    MUST(cuDeviceGetDefaultMemPool(&pool, 1));
    MUST(cuCtxSetCurrent(ctx[1]));
    CUdeviceptr pp;
    MUST(cuMemAllocAsync(&pp, 256, NULL));
    MUST(cuCtxSetCurrent(ctx[0]));
    OK(cuCtxEnablePeerAccess(ctx[1], 0));
    expect_fault(0, pp, "pool memory of device 1 from device 0 without pool access");
    CUmemAccessDesc g0 = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemPoolSetAccess(pool, &g0, 1));
    expect_runs(0, pp, "pool memory of device 1 with pool access granted to device 0");
    expect_runs(1, pp, "pool memory from its own device");

    /* managed and pinned host memory: from any device */
    CUdeviceptr m;
    void *hp;
    MUST(cuCtxSetCurrent(ctx[3]));
    MUST(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL));
    MUST(cuMemHostAlloc(&hp, 64, 0));
    expect_runs(0, m, "managed memory");
    expect_runs(1, (CUdeviceptr)(uintptr_t)hp, "pinned host memory");
    static int reg[1024] __attribute__((aligned(4096)));
    MUST(cuMemHostRegister(reg, sizeof reg, 0));
    expect_runs(2, (CUdeviceptr)(uintptr_t)reg, "registered host memory");
    OK(cuMemHostUnregister(reg));

    /* pageable host memory: only with HMM */
    int *pageable = malloc(4096);
    if (hmm) {
        expect_runs(2, (CUdeviceptr)(uintptr_t)pageable, "pageable host memory with SIMCUDA_HMM=1");
        EQ(*pageable, 7);
    } else
        expect_fault(2, (CUdeviceptr)(uintptr_t)pageable, "pageable host memory without HMM");
    free(pageable);
    /* plain data that is no address never faults (probe made just before,
     * so that nothing maps the page again in between) */
    void *gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TRUE(gone != MAP_FAILED);
    munmap(gone, 4096);
    NOT_AN_ADDRESS = (uintptr_t)gone + 8;
    expect_runs(1, (CUdeviceptr)NOT_AN_ADDRESS, "data that is no address");
    /* freed device memory faults */
    MUST(cuCtxSetCurrent(ctx[1]));
    OK(cuMemFree(on1));
    expect_fault(1, on1, "freed device memory");

    /* IPC: peer access, or a handle opened with lazy peer access */
    CUdeviceptr on3, ipc_plain, ipc_lazy;
    CUipcMemHandle ih;
    MUST(cuCtxSetCurrent(ctx[3]));
    MUST(cuMemAlloc(&on3, 64));
    MUST(cuIpcGetMemHandle(&ih, on3));
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuIpcOpenMemHandle(&ipc_plain, ih, 0));
    MUST(cuIpcOpenMemHandle(&ipc_lazy, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    expect_fault(1, ipc_plain, "IPC memory of device 3 opened on device 1 without peer access");
    /* the reset unmapped what context 1 had opened: open again */
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuIpcOpenMemHandle(&ipc_plain, ih, 0));
    MUST(cuIpcOpenMemHandle(&ipc_lazy, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    expect_runs(1, ipc_lazy, "IPC memory opened with CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS");
    MUST(cuCtxSetCurrent(ctx[1]));
    OK(cuCtxEnablePeerAccess(ctx[3], 0));
    expect_runs(1, ipc_plain, "IPC memory with peer access to the owner's context");
    MUST(cuCtxSetCurrent(ctx[3]));
    v = 0;
    OK(cuMemcpyDtoH(&v, on3, 4));
    EQ(v, 7);
    MUST(cuCtxSetCurrent(ctx[1]));
    OK(cuIpcCloseMemHandle(ipc_plain));
    OK(cuIpcCloseMemHandle(ipc_lazy));

}

/* A context-less CUkernel takes its context from the stream (cuda.h,
 * cuLaunchKernel), whatever context is current; a module's CUfunction does
 * not (faults() checks that refusal). */
static void kernel_in_stream_ctx(void)
{
    size_t len;
    void *cubin = drv_slurp(KDIR, "drv_kernels.cubin", &len);
    CUlibrary kl;
    CUkernel kt;
    MUST(cuLibraryLoadData(&kl, cubin, NULL, NULL, 0, NULL, NULL, 0));
    free(cubin);
    MUST(cuLibraryGetKernel(&kt, kl, "_Z5touchPii"));
    CUdeviceptr on0, on1;
    CUstream s1;
    MUST(cuCtxSetCurrent(ctx[0]));
    MUST(cuMemAlloc(&on0, 4));
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuMemAlloc(&on1, 4));
    MUST(cuStreamCreate(&s1, 0));
    MUST(cuCtxSetCurrent(ctx[0]));      /* device 0 current, device 1's stream */
    int nine = 9, v = 0, before = twin_runs;
    void *a1[] = { &on1, &nine };
    OK(cuLaunchKernel((CUfunction)(void *)kt, 1, 1, 1, 1, 1, 1, 0, s1, a1, NULL));
    EQ(twin_runs, before + 1);
    OK(cuStreamSynchronize(s1));
    OK(cuMemcpyDtoH(&v, on1, 4));
    EQ(v, 9);
    /* it runs on device 1, which has no peer access to device 0's memory:
     * the fault is context 1's, and context 0 stays clean */
    void *a0[] = { &on0, &nine };
    OK(cuLaunchKernel((CUfunction)(void *)kt, 1, 1, 1, 1, 1, 1, 0, s1, a0, NULL));
    EQ(twin_runs, before + 1);
    EXPECT(cuStreamSynchronize(s1), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuCtxSynchronize());
    /* the NULL stream: the current context's */
    OK(cuLaunchKernel((CUfunction)(void *)kt, 1, 1, 1, 1, 1, 1, 0, NULL, a0, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(&v, on0, 4));
    EQ(v, 9);
    OK(cuMemFree(on0));
    OK(cuLibraryUnload(kl));
    reset_device(1);
}

int main(void)
{
    const char *h = getenv("SIMCUDA_HMM");
    int hmm = h && !strcmp(h, "1");
    MUST(cuInit(0));
    for (int i = 0; i < 4; i++)
        MUST(cuDevicePrimaryCtxRetain(&ctx[i], i));
    int pma = -1;
    OK(cuDeviceGetAttribute(&pma, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0));
    EQ(pma, hmm);
    load_modules();
    param_info();
    compute();
    library();
    faults(hmm);
    kernel_in_stream_ctx();
    return drv_done(hmm ? "drv_launch (SIMCUDA_HMM=1)" : "drv_launch");
}
