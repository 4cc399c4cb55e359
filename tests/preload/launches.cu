// Every launch and allocation path of the interposer, one per mode; each mode
// launches `probe(dst, src)` on device 0 with dst on device 0 and src from the
// mode's allocation (or launch API).  Usage: launches MODE [check].  Prints
// "launches: MODE" and exits 0; results are not checked (some launches fault)
// unless `check` is given: then src holds known values and dst must equal
// them after the launch (e.g. under mode=migrate).  Either way the caller's
// argument storage (args, the `extra` array and its buffer) must be unchanged
// after the launch, else "launches: MODE: ... modified" and exit 1.
//   extra     cuLaunchKernel, arguments packed in `extra`         src on dev 1
//   ex        cuLaunchKernelEx                                    src on dev 1
//   kernfunc  cuLaunchKernel of a CUkernel passed as a CUfunction
//             (cudaGetKernel; cuda.h allows it)                     src on dev 1
//   coop      cuLaunchCooperativeKernel                           src on dev 1
//   ptsz      cuLaunchKernel_ptsz (cudaGetDriverEntryPointByVersion,
//             per-thread flag)                                    src on dev 1
//   rt        cudaLaunchKernel (the CUDA 11/12 runtime launch)    src on dev 1
//   rtex      cudaLaunchKernelExC                                 src on dev 1
//   rtcoop    cudaLaunchCooperativeKernel                         src on dev 1
//   graph     cuGraphAddKernelNode (checked when the node is added)   dev 1
//   (pageable with SIMCUDA_HMM=1: the device reports pageable memory access)
//   graphnode cuGraphAddNode with a kernel node (the generic node API)      dev 1
//   stream    <<<>>> into a stream of device 1 while device 0 is current
//   vmm       cuMemCreate/Map on dev 1, access granted to dev 1 only
//   vmmgrant  the same, access also granted to dev 0
//   vmmstripe a reservation striped over devs 1 and 2 (one cuMemSetAccess for
//             both), unmapped whole, its first half remapped on dev 0: src is
//             the second half, no longer mapped (no stale owner may remain)
//   peeron    device 0 enabled peer access to device 1         src on dev 1
//   peeroff   enabled, then disabled again                       src on dev 1
//   ipc       dev 1 buffer exported and opened on dev 0 with lazy peer access
//   ipcnolazy the same through cuIpcOpenMemHandle without the lazy flag
//   pool      cudaMallocAsync on a stream of dev 1
//   poolgrant the same after cudaMemPoolSetAccess(dev 1's pool, dev 0)
//   pinned    cudaMallocHost;  registered  cudaHostRegister;  pageable  malloc
//   managed   cudaMallocManaged on dev 1
//   freed     dev 1 buffer freed, its address reused by dev 0 (no finding)
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void probe(float *dst, const float *src)
{
    dst[threadIdx.x] = src[threadIdx.x];
}

// The sim runs this host twin in place of probe (sim/driver/README.md).
extern "C" void simcuda_twin_probe(void **args, const unsigned grid[3], const unsigned block[3])
{
    float *dst = *(float **)args[0];
    const float *src = *(const float **)args[1];
    for (unsigned i = 0; i < grid[0] * block[0]; i++)
        dst[i] = src[i];
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "launches: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    fprintf(stderr, "launches: %s: error %d\n", #x, (int)r_); exit(1); } } while (0)

static float *on_device(int dev, size_t n)
{
    float *p = NULL;
    int cur;
    CK(cudaGetDevice(&cur));
    CK(cudaSetDevice(dev));
    CK(cudaMalloc(&p, n));
    CK(cudaSetDevice(cur));
    return p;
}

static CUdeviceptr vmm(int dev, int grant0)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CU(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle h;
    CU(cuMemAddressReserve(&va, gran, 0, 0, 0));
    CU(cuMemCreate(&h, gran, &prop, 0));
    CU(cuMemMap(va, gran, 0, h, 0));
    CUmemAccessDesc acc[2];
    memset(acc, 0, sizeof acc);
    acc[0].location.type = acc[1].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[0].location.id = dev;
    acc[1].location.id = 0;
    acc[0].flags = acc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, gran, acc, grant0 ? 2 : 1));
    CU(cuMemRelease(h));                 /* the mapping keeps it alive */
    return va;
}

static CUmemGenericAllocationHandle physical(int dev, size_t *gran)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    CU(cuMemGetAllocationGranularity(gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h;
    CU(cuMemCreate(&h, *gran, &prop, 0));
    return h;
}

static CUdeviceptr vmm_stripe(void)
{
    size_t g = 0;
    CUmemGenericAllocationHandle h1 = physical(1, &g), h2 = physical(2, &g);
    CUdeviceptr va = 0;
    CU(cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    CU(cuMemMap(va, g, 0, h1, 0));
    CU(cuMemMap(va + g, g, 0, h2, 0));
    CUmemAccessDesc acc[2];
    memset(acc, 0, sizeof acc);
    acc[0].location.type = acc[1].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc[0].location.id = 1;
    acc[1].location.id = 2;
    acc[0].flags = acc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU(cuMemSetAccess(va, 2 * g, acc, 2));
    CU(cuMemUnmap(va, 2 * g));
    CUmemGenericAllocationHandle h0 = physical(0, &g);
    CU(cuMemMap(va, g, 0, h0, 0));
    acc[0].location.id = 0;
    CU(cuMemSetAccess(va, g, acc, 1));
    return va + g;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";
    const size_t n = 64 * sizeof(float);
    CK(cudaSetDevice(0));
    float *dst = on_device(0, n);
    const float *src = NULL;
    void *host = NULL;
    cudaStream_t s1 = NULL;
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)probe));
    CUfunction fn = (CUfunction)f;

    if (!strcmp(m, "ipc") || !strcmp(m, "ipcnolazy")) {
        float *p = on_device(1, n);
        cudaIpcMemHandle_t h;
        CK(cudaIpcGetMemHandle(&h, p));
        void *q = NULL;
        if (!strcmp(m, "ipc")) {
            CK(cudaIpcOpenMemHandle(&q, h, cudaIpcMemLazyEnablePeerAccess));
        } else {
            CUipcMemHandle dh;
            memcpy(&dh, &h, sizeof dh);
            CUdeviceptr d = 0;
            CU(cuIpcOpenMemHandle(&d, dh, 0));
            q = (void *)d;
        }
        src = (const float *)q;
    } else if (!strcmp(m, "vmmstripe")) {
        src = (const float *)vmm_stripe();
    } else if (!strcmp(m, "vmm") || !strcmp(m, "vmmgrant")) {
        src = (const float *)vmm(1, !strcmp(m, "vmmgrant"));
    } else if (!strcmp(m, "pool") || !strcmp(m, "poolgrant")) {
        float *p = NULL;
        CK(cudaSetDevice(1));
        CK(cudaStreamCreate(&s1));
        CK(cudaMallocAsync(&p, n, s1));
        CK(cudaStreamSynchronize(s1));
        if (!strcmp(m, "poolgrant")) {
            cudaMemPool_t pool;
            CK(cudaDeviceGetDefaultMemPool(&pool, 1));
            cudaMemAccessDesc d;
            memset(&d, 0, sizeof d);
            d.location.type = cudaMemLocationTypeDevice;
            d.location.id = 0;
            d.flags = cudaMemAccessFlagsProtReadWrite;
            CK(cudaMemPoolSetAccess(pool, &d, 1));
        }
        CK(cudaSetDevice(0));
        src = p;
    } else if (!strcmp(m, "pinned")) {
        CK(cudaMallocHost(&host, n));
        src = (const float *)host;
    } else if (!strcmp(m, "registered")) {
        host = aligned_alloc(4096, 4096);
        CK(cudaHostRegister(host, 4096, cudaHostRegisterDefault));
        src = (const float *)host;
    } else if (!strcmp(m, "pageable")) {
        host = calloc(1, n);
        src = (const float *)host;
    } else if (!strcmp(m, "managed")) {
        float *p = NULL;
        CK(cudaSetDevice(1));
        CK(cudaMallocManaged(&p, n));
        CK(cudaSetDevice(0));
        src = p;
    } else if (!strcmp(m, "freed")) {
        float *p = on_device(1, n);
        CK(cudaSetDevice(1));
        CK(cudaFree(p));
        CK(cudaSetDevice(0));
        src = on_device(0, n);          /* not necessarily the same address: reuse is tested by the registry */
    } else {
        src = on_device(1, n);
        if (!strcmp(m, "peeron") || !strcmp(m, "peeroff") || !strcmp(m, "peerflip"))
            CK(cudaDeviceEnablePeerAccess(1, 0));
        if (!strcmp(m, "peeroff"))
            CK(cudaDeviceDisablePeerAccess(1));
    }

    int check = argc > 2 && !strcmp(argv[2], "check");
    float want[16];
    for (int i = 0; i < 16; i++)
        want[i] = 1.5f * (float)i + 1.0f;
    if (check)
        CK(cudaMemcpy((void *)src, want, sizeof want, cudaMemcpyDefault));
    float *const dst0 = dst;
    const float *const src0 = src;
    void *args[] = { &dst, &src };
    if (!strcmp(m, "extra")) {
        struct { float *d; const float *s; } buf = { dst, src };
        size_t size = sizeof buf;
        void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                          CU_LAUNCH_PARAM_END };
        cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, NULL, NULL, extra);
        if (buf.d != dst0 || buf.s != src0 || size != sizeof buf || extra[0] != CU_LAUNCH_PARAM_BUFFER_POINTER ||
            extra[1] != &buf || extra[2] != CU_LAUNCH_PARAM_BUFFER_SIZE || extra[3] != &size ||
            extra[4] != CU_LAUNCH_PARAM_END) {
            printf("launches: %s: the extra array or its buffer was modified\n", m);
            return 1;
        }
    } else if (!strcmp(m, "kernfunc")) {
        cudaKernel_t k = NULL;
        CK(cudaGetKernel(&k, probe));
        cuLaunchKernel((CUfunction)k, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL);
    } else if (!strcmp(m, "ex")) {
        CUlaunchConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = 16;
        cfg.blockDimY = cfg.blockDimZ = 1;
        cuLaunchKernelEx(&cfg, fn, args, NULL);
    } else if (!strcmp(m, "coop")) {
        cuLaunchCooperativeKernel(fn, 1, 1, 1, 16, 1, 1, 0, NULL, args);
    } else if (!strcmp(m, "ptsz")) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q;
        CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &p, 13000, cudaEnablePerThreadDefaultStream, &q));
        typedef CUresult (*launch_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, CUstream, void **, void **);
        ((launch_t)p)(fn, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL);
    } else if (!strcmp(m, "rt")) {
        cudaLaunchKernel((const void *)probe, dim3(1), dim3(16), args, 0, NULL);
    } else if (!strcmp(m, "rtex")) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(1);
        cfg.blockDim = dim3(16);
        cudaLaunchKernelExC(&cfg, (const void *)probe, args);
    } else if (!strcmp(m, "rtcoop")) {
        cudaLaunchCooperativeKernel((const void *)probe, dim3(1), dim3(16), args, 0, NULL);
    } else if (!strcmp(m, "graph")) {
        /* The node is checked when it is added, before the driver sees it:
         * a driver without graphs (the sim) still shows the finding. */
        CUgraph g = NULL;
        CUgraphNode node;
        (void)cuGraphCreate(&g, 0);
        CUDA_KERNEL_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        p.func = fn;
        p.gridDimX = p.gridDimY = p.gridDimZ = 1;
        p.blockDimX = 16;
        p.blockDimY = p.blockDimZ = 1;
        p.kernelParams = args;
        cuGraphAddKernelNode(&node, g, NULL, 0, &p);
    } else if (!strcmp(m, "graphnode")) {
        CUgraph g = NULL;
        CUgraphNode node;
        (void)cuGraphCreate(&g, 0);
        CUgraphNodeParams p;
        memset(&p, 0, sizeof p);
        p.type = CU_GRAPH_NODE_TYPE_KERNEL;
        p.kernel.func = fn;
        p.kernel.gridDimX = p.kernel.gridDimY = p.kernel.gridDimZ = 1;
        p.kernel.blockDimX = 16;
        p.kernel.blockDimY = p.kernel.blockDimZ = 1;
        p.kernel.kernelParams = args;
        cuGraphAddNode(&node, g, NULL, NULL, 0, &p);
    } else if (!strcmp(m, "peerflip")) {
        /* the same launch again and again over peer access (a warning, then
         * its repeats: the thread's memo keeps the launch), then peer access
         * off: the same launch is an error (core/verdict/lmemo.h) */
        for (int i = 0; i < 4; i++)
            probe<<<1, 16>>>(dst, src);
        CK(cudaDeviceDisablePeerAccess(1));
        probe<<<1, 16>>>(dst, src);
    } else if (!strcmp(m, "stream")) {
        CK(cudaSetDevice(1));
        CK(cudaStreamCreate(&s1));
        CK(cudaSetDevice(0));
        const float *own = on_device(1, n);
        float *dst1 = on_device(1, n);
        probe<<<1, 16, 0, s1>>>(dst1, own);     /* operands fine for device 1, stream of device 1, current 0 */
    } else {
        probe<<<1, 16>>>(dst, src);
    }
    cudaDeviceSynchronize();
    if (args[0] != &dst || args[1] != &src || dst != dst0 || src != src0) {
        printf("launches: %s: kernelParams modified\n", m);
        return 1;
    }
    if (check) {
        float got[16];
        CK(cudaMemcpy(got, dst, sizeof got, cudaMemcpyDefault));
        for (int i = 0; i < 16; i++)
            if (got[i] != want[i]) {
                printf("launches: %s: dst[%d] = %g, expected %g\n", m, i, (double)got[i], (double)want[i]);
                return 1;
            }
    }
    printf("launches: %s\n", m);
    return 0;
}
