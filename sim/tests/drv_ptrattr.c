/* drv_ptrattr: the "Pointer queries" table of sim/driver/README.md, walked on
 * 2 simulated GPUs.  Every memory kind (one row each) x the current context
 * (device 0's primary context, device 1's, none) x every
 * CU_POINTER_ATTRIBUTE_* through cuPointerGetAttribute and
 * cuPointerGetAttributes, cudaPointerGetAttributes (the sim's runtime, found
 * with dlopen), cuMemGetAddressRange and cuMemGetAccess; the walk runs
 * before and after device 0's context enables peer access to device 1's.
 *
 * The expected answers are written below, row by row, as the README states
 * them (cuda.h's text, or the H200 trace where cuda.h is silent); the test
 * computes none of them from the sim.  SIMCUDA_HMM=1 (the device reads
 * pageable memory): pageable memory has a device pointer. */
#include "drv_check.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifndef IDIR
#error IDIR must name the directory holding evidence.cubin
#endif

#define RW CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
#define RO CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ

/* One row: a pointer and what every query must answer about it. */
struct row {
    const char *name;
    CUdeviceptr p;              /* queried at base + 64 */
    int cuda;                   /* allocated, mapped or registered by CUDA */
    CUcontext ctx;              /* CONTEXT: NULL for pool and VMM memory */
    unsigned type;              /* MEMORY_TYPE */
    int ordinal;                /* DEVICE_ORDINAL */
    int managed;                /* IS_MANAGED */
    int host;                   /* HOST_POINTER exists */
    unsigned access[2];         /* ACCESS_FLAGS of device 0's / device 1's context; DEVICE_POINTER iff not 0 */
    int from_alloc;             /* cuMemAlloc(Pitch) memory: IS_LEGACY_CUDA_IPC_CAPABLE, P2P_TOKENS */
    CUdeviceptr range_base;     /* RANGE_START_ADDR / RANGE_SIZE */
    size_t range_size;
    CUdeviceptr map_base;       /* MAPPING_BASE_ADDR / MAPPING_SIZE, cuMemGetAddressRange */
    size_t map_size;
    unsigned handle_types;      /* ALLOWED_HANDLE_TYPES */
    CUmemoryPool pool;          /* MEMPOOL_HANDLE */
    int vmm;                    /* cuMemGetAccess answers (access[] per device) */
    int sync;                   /* SYNC_MEMOPS: set by a P2P_TOKENS query */
};

enum { CTX0, CTX1, NOCTX };
static CUcontext g_ctx[2];
static int g_hmm;
static __typeof__(cudaPointerGetAttributes) *rt_attrs;

static const char *state_name(int s) { return s == CTX0 ? "device 0 current" : s == CTX1 ? "device 1 current" : "no context"; }

#define ROWFAIL(r, s, ...) do { \
        fprintf(stderr, "%s (%s): ", (r)->name, state_name(s)); \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr); \
        drv_failures++; \
    } while (0)
#define ROW_EXPECT(r, s, call, code) do { \
        CUresult got_ = (call); \
        if (got_ != (code)) \
            ROWFAIL(r, s, "%s returned %s, expected %s", #call, drv_errname(got_), drv_errname(code)); \
    } while (0)
#define ROW_EQ(r, s, what, got, want) do { \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
        if (g_ != w_) \
            ROWFAIL(r, s, "%s = 0x%llx, expected 0x%llx", what, g_, w_); \
    } while (0)

/* The access device `s` has; 0 without a context. */
static unsigned access_of(const struct row *r, int s)
{
    if (s == NOCTX)
        return 0;
    if (!r->cuda)               /* pageable: through its own address with HMM */
        return g_hmm && r->access[0] ? RW : 0;
    return r->access[s];
}

/* cuPointerGetAttribute, one attribute at a time. */
static void walk_single(struct row *r, int s)
{
    CUresult bad = r->cuda ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr q = r->p;
    union { CUcontext c; unsigned u; int i; CUdeviceptr d; void *v; unsigned long long ull; size_t z; bool b;
            CUmemoryPool pool; CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tok; } v;
#define GET(attr, code) (memset(&v, 0x5a, sizeof v), cuPointerGetAttribute(&v, (attr), q))
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_CONTEXT, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "CONTEXT", v.c, r->ctx);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "MEMORY_TYPE", v.u, r->type);
    /* "If there exists no device pointer value through which kernels
     * running in the current CUcontext may access ptr then
     * CUDA_ERROR_INVALID_VALUE ... If there is no current CUcontext then
     * CUDA_ERROR_INVALID_CONTEXT" */
    CUresult dp = s == NOCTX ? CUDA_ERROR_INVALID_CONTEXT : access_of(r, s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dp), dp);
    if (dp == CUDA_SUCCESS) ROW_EQ(r, s, "DEVICE_POINTER", v.d, q);
    CUresult hp = r->cuda && r->host ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_HOST_POINTER, hp), hp);
    if (hp == CUDA_SUCCESS) ROW_EQ(r, s, "HOST_POINTER", (uintptr_t)v.v, q);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "SYNC_MEMOPS", v.b, r->sync);
    unsigned long long id = 0;
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_BUFFER_ID, bad), bad);
    if (r->cuda) {
        id = v.ull;
        TRUE(id != 0);
    }
    /* "ptr must be a pointer to memory obtained from cuMemAlloc()"; the
     * query sets SYNC_MEMOPS */
    CUresult tp = r->from_alloc ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_P2P_TOKENS, tp), tp);
    if (tp == CUDA_SUCCESS) {
        r->sync = 1;
        ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, bad), CUDA_SUCCESS);
        ROW_EQ(r, s, "SYNC_MEMOPS after P2P_TOKENS", v.b, 1);
    }
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_IS_MANAGED, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "IS_MANAGED", v.b, r->managed);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "DEVICE_ORDINAL", v.i, r->ordinal);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "IS_LEGACY_CUDA_IPC_CAPABLE", v.b, r->from_alloc);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "RANGE_START_ADDR", v.d, r->range_base);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_RANGE_SIZE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "RANGE_SIZE", v.z, r->range_size);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MAPPED, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "MAPPED", v.b, 1);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "ALLOWED_HANDLE_TYPES", v.u, r->handle_types);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "IS_GPU_DIRECT_RDMA_CAPABLE", v.b, 0);
    CUresult af = s == NOCTX ? CUDA_ERROR_INVALID_CONTEXT : bad;
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, af), af);
    if (af == CUDA_SUCCESS) ROW_EQ(r, s, "ACCESS_FLAGS", v.u, access_of(r, s));
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "MEMPOOL_HANDLE", v.pool, r->pool);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "MAPPING_SIZE", v.z, r->map_size);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "MAPPING_BASE_ADDR", (uintptr_t)v.v, r->map_base);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID, bad), bad);
    if (r->cuda) TRUE(v.ull != 0);
    ROW_EXPECT(r, s, GET(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE, bad), bad);
    if (r->cuda) ROW_EQ(r, s, "IS_HW_DECOMPRESS_CAPABLE", v.b, 0);
    ROW_EXPECT(r, s, GET((CUpointer_attribute)99, 0), CUDA_ERROR_INVALID_VALUE);
    ROW_EXPECT(r, s, cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, q), CUDA_ERROR_INVALID_VALUE);
#undef GET
}

/* cuPointerGetAttributes: the 15 attributes of its list in one call,
 * "default NULL values" where none exists; each of the others alone is
 * CUDA_ERROR_INVALID_VALUE. */
static void walk_batch(const struct row *r, int s)
{
    CUcontext ctx;
    unsigned type, handle_types;
    CUdeviceptr dptr, start;
    void *hptr;
    bool sync, managed, ipc, mapped, decomp;
    unsigned long long id;
    int ordinal;
    size_t size;
    CUmemoryPool pool;
    CUpointer_attribute at[] = {
        CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, CU_POINTER_ATTRIBUTE_BUFFER_ID,
        CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
        CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
        CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE,
    };
    void *data[] = { &ctx, &type, &dptr, &hptr, &sync, &id, &managed, &ordinal, &start, &size, &mapped, &ipc,
                     &handle_types, &pool, &decomp };
    size_t sizes[] = { sizeof ctx, sizeof type, sizeof dptr, sizeof hptr, sizeof sync, sizeof id, sizeof managed,
                       sizeof ordinal, sizeof start, sizeof size, sizeof mapped, sizeof ipc, sizeof handle_types,
                       sizeof pool, sizeof decomp };
    _Static_assert(sizeof at / sizeof at[0] == sizeof data / sizeof data[0], "one datum per attribute");
    _Static_assert(sizeof sizes / sizeof sizes[0] == sizeof data / sizeof data[0], "one size per datum");
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        memset(data[i], 0x5a, sizes[i]);
    ROW_EXPECT(r, s, cuPointerGetAttributes(sizeof at / sizeof at[0], at, data, r->p), CUDA_SUCCESS);
    unsigned acc = access_of(r, s);
    ROW_EQ(r, s, "batch CONTEXT", ctx, r->cuda ? r->ctx : NULL);
    ROW_EQ(r, s, "batch MEMORY_TYPE", type, r->cuda ? r->type : 0);
    ROW_EQ(r, s, "batch DEVICE_POINTER", dptr, acc ? r->p : 0);
    ROW_EQ(r, s, "batch HOST_POINTER", (uintptr_t)hptr, r->cuda && r->host ? r->p : 0);
    ROW_EQ(r, s, "batch SYNC_MEMOPS", sync, r->cuda && r->sync);
    TRUE(r->cuda ? id != 0 : id == 0);
    ROW_EQ(r, s, "batch IS_MANAGED", managed, r->managed);
    ROW_EQ(r, s, "batch DEVICE_ORDINAL", ordinal, r->cuda ? r->ordinal : -2);  /* -2: the H200 trace */
    ROW_EQ(r, s, "batch RANGE_START_ADDR", start, r->cuda ? r->range_base : 0);
    ROW_EQ(r, s, "batch RANGE_SIZE", size, r->cuda ? r->range_size : 0);
    ROW_EQ(r, s, "batch MAPPED", mapped, r->cuda);
    ROW_EQ(r, s, "batch IS_LEGACY_CUDA_IPC_CAPABLE", ipc, r->cuda && r->from_alloc);
    ROW_EQ(r, s, "batch ALLOWED_HANDLE_TYPES", handle_types, r->cuda ? r->handle_types : 0);
    ROW_EQ(r, s, "batch MEMPOOL_HANDLE", pool, r->cuda ? r->pool : NULL);
    ROW_EQ(r, s, "batch IS_HW_DECOMPRESS_CAPABLE", decomp, 0);
    CUpointer_attribute others[] = {
        CU_POINTER_ATTRIBUTE_P2P_TOKENS, CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
        CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
        CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID,
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        CUDA_POINTER_ATTRIBUTE_P2P_TOKENS big;
        void *d1[] = { &big };
        ROW_EXPECT(r, s, cuPointerGetAttributes(1, &others[i], d1, r->p), CUDA_ERROR_INVALID_VALUE);
    }
}

/* cudaPointerGetAttributes (the runtime uses the driver's current context) */
static void walk_runtime(const struct row *r, int s)
{
    if (s == NOCTX || !rt_attrs)
        return;
    struct cudaPointerAttributes a;
    memset(&a, 0x5a, sizeof a);
    cudaError_t e = rt_attrs(&a, (const void *)(uintptr_t)r->p);
    if (e != cudaSuccess) {
        ROWFAIL(r, s, "cudaPointerGetAttributes returned %d", (int)e);
        return;
    }
    enum cudaMemoryType t = !r->cuda ? cudaMemoryTypeUnregistered : r->managed ? cudaMemoryTypeManaged :
                            r->type == CU_MEMORYTYPE_HOST ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
    ROW_EQ(r, s, "cudaPointerAttributes.type", a.type, t);
    ROW_EQ(r, s, "cudaPointerAttributes.device", a.device, r->cuda ? r->ordinal : cudaInvalidDeviceId);
    ROW_EQ(r, s, "cudaPointerAttributes.devicePointer", (uintptr_t)a.devicePointer, access_of(r, s) ? r->p : 0);
    ROW_EQ(r, s, "cudaPointerAttributes.hostPointer", (uintptr_t)a.hostPointer,
           !r->cuda || r->host ? r->p : 0);
}

/* cuMemGetAddressRange and cuMemGetAccess */
static void walk_range_access(const struct row *r, int s)
{
    CUdeviceptr base = 1;
    size_t size = 1;
    CUresult want = s == NOCTX ? CUDA_ERROR_INVALID_CONTEXT : r->cuda ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
    ROW_EXPECT(r, s, cuMemGetAddressRange(&base, &size, r->p), want);
    if (want == CUDA_SUCCESS) {
        ROW_EQ(r, s, "cuMemGetAddressRange base", base, r->map_base);
        ROW_EQ(r, s, "cuMemGetAddressRange size", size, r->map_size);
        ROW_EXPECT(r, s, cuMemGetAddressRange(NULL, &size, r->p), CUDA_SUCCESS);
        ROW_EXPECT(r, s, cuMemGetAddressRange(&base, NULL, r->p), CUDA_SUCCESS);
    }
    for (int d = 0; d < 2; d++) {
        CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, d };
        unsigned long long f = 0x5a;
        ROW_EXPECT(r, s, cuMemGetAccess(&f, &loc, r->p), r->vmm ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
        if (r->vmm)
            ROW_EQ(r, s, "cuMemGetAccess", f, r->access[d]);
    }
}

static void walk(struct row *rows, size_t n)
{
    for (int s = CTX0; s <= NOCTX; s++) {
        if (s == NOCTX)
            MUST(cuCtxSetCurrent(NULL));
        else
            MUST(cuCtxSetCurrent(g_ctx[s]));
        for (size_t i = 0; i < n; i++) {
            walk_single(&rows[i], s);
            walk_batch(&rows[i], s);
            walk_runtime(&rows[i], s);
            walk_range_access(&rows[i], s);
        }
    }
}

/* A row of device memory made in context c (device dev). */
static struct row dev_row(const char *name, CUdeviceptr base, size_t size, CUcontext c, int dev)
{
    struct row r = { 0 };
    r.name = name;
    r.p = base + 64;
    r.cuda = 1;
    r.ctx = c;
    r.type = CU_MEMORYTYPE_DEVICE;
    r.ordinal = dev;
    r.access[dev] = RW;
    r.range_base = r.map_base = base;
    r.range_size = r.map_size = size;
    return r;
}

/* A row of memory the host may access from any context. */
static struct row host_row(const char *name, void *base, size_t size, CUcontext c, int dev)
{
    struct row r = dev_row(name, (CUdeviceptr)(uintptr_t)base, size, c, dev);
    r.type = CU_MEMORYTYPE_HOST;
    r.host = 1;
    r.access[0] = r.access[1] = RW;
    return r;
}

/* A VMM mapping [base + off, + size) of a reservation [base, + rsize). */
static struct row vmm_row(const char *name, CUdeviceptr base, size_t rsize, size_t off, size_t size, unsigned types)
{
    struct row r = dev_row(name, base + off, size, NULL, 1);
    r.access[1] = 0;            /* nothing until cuMemSetAccess, the owner neither */
    r.range_base = base;
    r.range_size = rsize;
    r.handle_types = types;
    r.vmm = 1;
    return r;
}

int main(void)
{
    g_hmm = getenv("SIMCUDA_HMM") && !strcmp(getenv("SIMCUDA_HMM"), "1");
    MUST(cuInit(0));
    int ndev = 0;
    MUST(cuDeviceGetCount(&ndev));
    EQ(ndev, 2);
    for (int d = 0; d < 2; d++) {
        CUdevice dev;
        MUST(cuDeviceGet(&dev, d));
        MUST(cuDevicePrimaryCtxRetain(&g_ctx[d], dev));
    }
    void *rt = dlopen("libcudart.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!rt || !(rt_attrs = (__typeof__(cudaPointerGetAttributes) *)dlsym(rt, "cudaPointerGetAttributes"))) {
        fprintf(stderr, "no libcudart.so.13: %s\n", dlerror());
        return 1;
    }
    CUcontext c0 = g_ctx[0], c1 = g_ctx[1];
    struct row rows[24];
    size_t n = 0;
    const size_t N = 4096;

    /* device memory of the current context's device, of the other one */
    MUST(cuCtxSetCurrent(c0));
    CUdeviceptr d0;
    MUST(cuMemAlloc(&d0, N));
    rows[n] = dev_row("cuMemAlloc on device 0", d0, N, c0, 0);
    rows[n++].from_alloc = 1;
    MUST(cuCtxSetCurrent(c1));
    CUdeviceptr d1, pitched;
    size_t pitch = 0;
    MUST(cuMemAlloc(&d1, N));
    size_t i_d1 = n;
    rows[n] = dev_row("cuMemAlloc on device 1", d1, N, c1, 1);
    rows[n++].from_alloc = 1;
    MUST(cuMemAllocPitch(&pitched, &pitch, 100, 16, 4));
    size_t i_pitch = n;
    rows[n] = dev_row("cuMemAllocPitch on device 1", pitched, pitch * 16, c1, 1);
    rows[n++].from_alloc = 1;

    /* pools of device 1: one granted to device 0 (cuMemPoolSetAccess) */
    CUstream st1;
    MUST(cuStreamCreate(&st1, CU_STREAM_NON_BLOCKING));
    CUmemoryPool pool[2];
    for (int k = 0; k < 2; k++) {
        CUmemPoolProps pp;
        memset(&pp, 0, sizeof pp);
        pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        pp.location.id = 1;
        pp.handleTypes = k ? CU_MEM_HANDLE_TYPE_NONE : CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        MUST(cuMemPoolCreate(&pool[k], &pp));
        CUdeviceptr pm;
        MUST(cuMemAllocFromPoolAsync(&pm, N, pool[k], st1));
        rows[n] = dev_row(k ? "pool of device 1, granted to device 0" : "pool of device 1", pm, N, NULL, 1);
        rows[n].pool = pool[k];
        rows[n].handle_types = pp.handleTypes;
        if (k) {
            CUmemAccessDesc ad = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            MUST(cuMemPoolSetAccess(pool[k], &ad, 1));
            rows[n].access[0] = RW;
        }
        n++;
    }
    MUST(cuStreamSynchronize(st1));

    /* VMM memory of device 1: mapped without cuMemSetAccess; two mappings
     * of one reservation, one granted to device 1 only, one to device 1
     * and (read-only) device 0 */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 1;
    size_t gran = 0;
    MUST(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h[3];
    CUdeviceptr va_none, va_two;
    MUST(cuMemAddressReserve(&va_none, gran, 0, 0, 0));
    MUST(cuMemAddressReserve(&va_two, 2 * gran, 0, 0, 0));
    for (int k = 0; k < 3; k++) {
        prop.requestedHandleTypes = k == 1 ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
        MUST(cuMemCreate(&h[k], gran, &prop, 0));
    }
    MUST(cuMemMap(va_none, gran, 0, h[0], 0));
    rows[n++] = vmm_row("VMM of device 1, no cuMemSetAccess", va_none, gran, 0, gran, 0);
    MUST(cuMemMap(va_two, gran, 0, h[1], 0));
    MUST(cuMemMap(va_two + gran, gran, 0, h[2], 0));
    CUmemAccessDesc own = { { CU_MEM_LOCATION_TYPE_DEVICE, 1 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    CUmemAccessDesc both[2] = { own, { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READ } };
    MUST(cuMemSetAccess(va_two, gran, &own, 1));
    MUST(cuMemSetAccess(va_two + gran, gran, both, 2));
    rows[n] = vmm_row("VMM of device 1, cuMemSetAccess device 1", va_two, 2 * gran, 0, gran,
                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    rows[n++].access[1] = RW;
    rows[n] = vmm_row("VMM of device 1, cuMemSetAccess devices 1 and 0 (read)", va_two, 2 * gran, gran, gran, 0);
    rows[n].access[1] = RW;
    rows[n++].access[0] = RO;

    /* host memory: pinned (device 0), portable pinned (device 1), registered */
    void *pinned, *portable;
    MUST(cuCtxSetCurrent(c0));
    MUST(cuMemAllocHost(&pinned, N));
    rows[n++] = host_row("cuMemAllocHost in device 0's context", pinned, N, c0, 0);
    MUST(cuCtxSetCurrent(c1));
    MUST(cuMemHostAlloc(&portable, N, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    rows[n++] = host_row("cuMemHostAlloc(PORTABLE) in device 1's context", portable, N, c1, 1);
    MUST(cuCtxSetCurrent(c0));
    void *reg = aligned_alloc(4096, 2 * N);
    MUST(cuMemHostRegister(reg, 2 * N, 0));
    rows[n++] = host_row("cuMemHostRegister in device 0's context", reg, 2 * N, c0, 0);

    /* managed memory of device 1 */
    MUST(cuCtxSetCurrent(c1));
    CUdeviceptr mm;
    MUST(cuMemAllocManaged(&mm, N, CU_MEM_ATTACH_GLOBAL));
    rows[n] = host_row("cuMemAllocManaged in device 1's context", (void *)(uintptr_t)mm, N, c1, 1);
    rows[n].type = CU_MEMORYTYPE_DEVICE;        /* the H200 trace: managed memory is DEVICE (2) */
    rows[n++].managed = 1;

    /* pageable memory; a freed device allocation */
    void *pageable = malloc(N);
    memset(pageable, 0, N);
    rows[n] = (struct row){ .name = "pageable (malloc)", .p = (CUdeviceptr)(uintptr_t)pageable + 64 };
    rows[n++].access[0] = 1;    /* marks "pageable" for access_of: a device pointer only with HMM */
    MUST(cuCtxSetCurrent(c0));
    CUdeviceptr freed;
    MUST(cuMemAlloc(&freed, N));
    MUST(cuMemFree(freed));
    rows[n++] = (struct row){ .name = "freed cuMemAlloc", .p = freed + 64 };

    /* IPC: device 1's memory opened in device 0's context, plain and with
     * lazy peer access (in this process, as drv_launch does) */
    CUipcMemHandle ih;
    MUST(cuIpcGetMemHandle(&ih, d1));
    CUdeviceptr ipc_plain, ipc_lazy;
    MUST(cuIpcOpenMemHandle(&ipc_plain, ih, 0));
    MUST(cuIpcOpenMemHandle(&ipc_lazy, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    size_t i_ipc = n;
    rows[n++] = dev_row("IPC of device 1 opened in device 0's context", ipc_plain, N, c0, 1);
    rows[n] = dev_row("IPC of device 1 opened with lazy peer access", ipc_lazy, N, c0, 1);
    rows[n++].access[0] = RW;

    /* a __device__ variable of a module loaded in device 1's context */
    MUST(cuCtxSetCurrent(c1));
    CUmodule mod;
    MUST(cuModuleLoadData(&mod, drv_slurp(IDIR, "evidence.cubin", NULL)));
    CUdeviceptr gv;
    size_t gsz = 0;
    MUST(cuModuleGetGlobal(&gv, &gsz, mod, "ev_array"));
    size_t i_global = n;
    rows[n] = dev_row("__device__ variable of a module in device 1's context", gv, gsz, c1, 1);
    rows[n++].p = gv + 4;       /* 16 bytes: an interior address */

    walk(rows, n);

    /* device 0's context enables peer access to device 1's: device 1's
     * cuMemAlloc memory, its IPC mapping and its module's variables become
     * accessible from device 0 (cuda.h, "Automatic Registration of Peer
     * Memory"); pool and VMM memory keep their own grants */
    MUST(cuCtxSetCurrent(c0));
    MUST(cuCtxEnablePeerAccess(c1, 0));
    rows[i_d1].access[0] = rows[i_pitch].access[0] = rows[i_ipc].access[0] = rows[i_global].access[0] = RW;
    walk(rows, n);

    printf("drv_ptrattr: %zu memory kinds x 3 contexts, before and after peer access\n", n);
    return drv_done("drv_ptrattr");
}
