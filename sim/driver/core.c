/* Simulated driver core: initialisation, environment, fault injection,
 * handle registry, devices, contexts, streams, events, error strings,
 * cuGetProcAddress. */
#include "internal.h"

#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sim_global sim_g;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
void sim_lock(void) { pthread_mutex_lock(&g_lock); }
void sim_unlock(void) { pthread_mutex_unlock(&g_lock); }
void sim_cond_wait(pthread_cond_t *cv) { pthread_cond_wait(cv, &g_lock); }

#define LOCKED(expr) __extension__({ sim_lock(); CUresult r__ = (expr); sim_unlock(); r__; })
#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)

double sim_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---------------- fault injection: SIMCUDA_FAIL=function:N[,function:N] -- */
struct failpoint { char name[96]; unsigned long n; unsigned long calls; };
static struct failpoint g_fail[32];
static int g_nfail;
static pthread_once_t g_env_once = PTHREAD_ONCE_INIT;

static void parse_env(void)
{
    const char *f = getenv("SIMCUDA_FAIL");
    if (f) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", f);
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok && g_nfail < 32; tok = strtok_r(NULL, ",", &save)) {
            char *colon = strrchr(tok, ':');
            if (!colon || colon == tok)
                continue;
            *colon = 0;
            char *end;
            unsigned long n = strtoul(colon + 1, &end, 10);
            if (*end || n == 0 || strlen(tok) >= sizeof g_fail[0].name)
                continue;
            snprintf(g_fail[g_nfail].name, sizeof g_fail[0].name, "%s", tok);
            g_fail[g_nfail].n = n;
            g_nfail++;
        }
    }
}

/* "cuMemAlloc_v2" matches entries "cuMemAlloc_v2" and "cuMemAlloc". */
int sim_name_matches(const char *entry, const char *fn)
{
    if (!strcmp(entry, fn))
        return 1;
    size_t n = strlen(entry);
    if (strncmp(entry, fn, n))
        return 0;
    const char *rest = fn + n;
    while (*rest == '_') {
        const char *p = rest + 1;
        if (!strncmp(p, "ptsz", 4) || !strncmp(p, "ptds", 4))
            rest = p + 4;
        else if (*p == 'v' && p[1] >= '0' && p[1] <= '9') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
            rest = p;
        } else
            return 0;
    }
    return *rest == 0;
}

static int fail_now(const char *fn)
{
    for (int i = 0; i < g_nfail; i++)
        if (sim_name_matches(g_fail[i].name, fn)) {
            unsigned long c = __atomic_add_fetch(&g_fail[i].calls, 1, __ATOMIC_SEQ_CST);
            if (c == g_fail[i].n)
                return 1;
        }
    return 0;
}

CUresult sim_enter(const char *fn, CUresult failcode)
{
    CUresult a = sim_absent(fn);
    if (a != CUDA_SUCCESS)
        return a;
    pthread_once(&g_env_once, parse_env);
    if (g_nfail && fail_now(fn))
        return failcode;
    if (!__atomic_load_n(&sim_g.initialized, __ATOMIC_ACQUIRE))
        return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

/* ---------------- handle registry ---------------- */
/* Every live handle, in an open-addressed hash set of pointers (under the
 * driver's lock): a lookup costs the same however many objects exist, as on
 * a real driver, so a tool that makes objects does not slow later calls. */
#define OBJ_TOMB ((void *)1)
static void **g_objs;
static size_t g_objs_cap, g_objs_used;                 /* used: live + tombstones */
/* Bumped whenever a handle goes (sim_cur_ctx_cached's per-thread answer). */
static _Atomic unsigned long g_objs_gone;

static size_t obj_hash(const void *o)
{
    uint64_t k = (uintptr_t)o;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

/* The slot holding o, or NULL. */
static void **obj_slot(const void *o)
{
    if (!g_objs_cap)
        return NULL;
    for (size_t i = obj_hash(o) & (g_objs_cap - 1);; i = (i + 1) & (g_objs_cap - 1)) {
        if (g_objs[i] == o)
            return &g_objs[i];
        if (!g_objs[i])
            return NULL;
    }
}

/* Rehashes without the tombstones, doubling only when half is live. */
static int obj_grow(void)
{
    size_t live = 0;
    for (size_t i = 0; i < g_objs_cap; i++)
        live += g_objs[i] && g_objs[i] != OBJ_TOMB;
    size_t cap = !g_objs_cap ? 1024 : (live + 1) * 4 > g_objs_cap ? g_objs_cap * 2 : g_objs_cap;
    void **v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    size_t used = 0;
    for (size_t i = 0; i < g_objs_cap; i++) {
        void *o = g_objs[i];
        if (!o || o == OBJ_TOMB)
            continue;
        size_t j = obj_hash(o) & (cap - 1);
        while (v[j])
            j = (j + 1) & (cap - 1);
        v[j] = o;
        used++;
    }
    free(g_objs);
    g_objs = v;
    g_objs_cap = cap;
    g_objs_used = used;
    return 0;
}

void sim_obj_add(void *o, int type)
{
    ((struct sim_obj *)o)->type = type;
    if (obj_slot(o))
        return;
    if ((g_objs_used + 1) * 2 > g_objs_cap && obj_grow() != 0)
        return;
    size_t i = obj_hash(o) & (g_objs_cap - 1);
    while (g_objs[i] && g_objs[i] != OBJ_TOMB)
        i = (i + 1) & (g_objs_cap - 1);
    if (!g_objs[i])
        g_objs_used++;
    g_objs[i] = o;
}
void sim_obj_del(void *o)
{
    void **slot = o ? obj_slot(o) : NULL;
    if (slot) {
        *slot = OBJ_TOMB;
        ((struct sim_obj *)o)->type = 0;
        atomic_fetch_add_explicit(&g_objs_gone, 1, memory_order_release);
    }
}
/* Visits every live handle as a tsearch leaf (visit may not add or delete). */
void sim_objects_walk(void (*visit)(const void *, VISIT, int))
{
    for (size_t i = 0; i < g_objs_cap; i++)
        if (g_objs[i] && g_objs[i] != OBJ_TOMB)
            visit(&g_objs[i], leaf, 0);
}

void *sim_obj_get(const void *o, int type)
{
    if (!o || o == OBJ_TOMB)
        return NULL;
    void **n = obj_slot(o);
    if (!n)
        return NULL;
    struct sim_obj *ob = *n;
    return ob->type == type ? ob : NULL;
}

/* ---------------- init ---------------- */
/* The devices, their names, UUIDs, PCI ids and peer topology come from
 * simdev.c, which the sim's libnvidia-ml.so.1 shares. */

static unsigned long long g_next_id = 1;

/* fork(): the child does not inherit the lock held by another thread.  (It
 * inherits no device memory either: the arenas are MADV_DONTFORK.)  The
 * forking thread took the lock in prepare, and the child's only thread is
 * that thread, so it unlocks it: initialising a locked mutex again is
 * undefined, and ThreadSanitizer would go on taking it for held. */
static void atfork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void atfork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void atfork_child(void) { pthread_mutex_unlock(&g_lock); }

static CUresult do_init(void)
{
    if (sim_g.initialized)
        return CUDA_SUCCESS;
    int nphys = simdev_count(0);
    if (nphys < 0)
        return CUDA_ERROR_INVALID_VALUE;
    int n = simdev_visible(nphys, sim_g.phys, 0);
    if (n == 0)
        return CUDA_ERROR_NO_DEVICE;    /* also CUDA_VISIBLE_DEVICES="" or an invalid first entry */
    sim_g.ndev = n;
    const char *h = getenv("SIMCUDA_HMM");
    sim_g.hmm = h && !strcmp(h, "1");
    const char *vb = getenv("SIMCUDA_VERBOSE");
    sim_g.verbose = vb && !strcmp(vb, "1");
    size_t cap = simdev_capacity(0);
    unsigned char phys_ok[SIM_MAX_DEVICES][SIM_MAX_DEVICES];   /* SIMCUDA_PEER names the machine's devices */
    simdev_peers(nphys, phys_ok, 0);
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            sim_g.peer_ok[a][b] = phys_ok[sim_g.phys[a]][sim_g.phys[b]];
    for (int i = 0; i < n; i++) {
        simdev_name(sim_g.phys[i], sim_g.dev[i].name, sizeof sim_g.dev[i].name);
        sim_g.dev[i].capacity = cap;
        struct sim_ctx *c = &sim_g.dev[i].primary;
        c->dev = i;
        c->primary = 1;
    }
    if (sim_mem_init())
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (int i = 0; i < n; i++)
        sim_mem_dev_init(i);
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
    __atomic_store_n(&sim_g.initialized, 1, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    pthread_once(&g_env_once, parse_env);
    if (g_nfail && fail_now(__func__))
        return CUDA_ERROR_NO_DEVICE;    /* what a machine without a usable GPU answers */
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return LOCKED(do_init());
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = sim_driver_version();
    return CUDA_SUCCESS;
}

/* ---------------- devices ---------------- */
static int dev_ok(CUdevice d) { return d >= 0 && d < sim_g.ndev; }

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    ENTER(CUDA_ERROR_INVALID_DEVICE);
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(ordinal))
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = sim_g.ndev;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, (size_t)len, "%s", sim_g.dev[dev].name);
    return CUDA_SUCCESS;
}

static CUresult get_uuid(CUuuid *uuid, CUdevice dev)
{
    if (!uuid)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    simdev_uuid(sim_g.phys[dev], (unsigned char *)uuid->bytes);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { ENTER(CUDA_ERROR_INVALID_VALUE); return get_uuid(uuid, dev); }
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) { ENTER(CUDA_ERROR_INVALID_VALUE); return get_uuid(uuid, dev); }

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!bytes)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = sim_g.dev[dev].capacity;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pciBusId || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    simdev_pci_bus_id_short(sim_g.phys[dev], pciBusId, (size_t)len);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!dev || !pciBusId)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned dom, bus, d, f;
    if (sscanf(pciBusId, "%x:%x:%x.%x", &dom, &bus, &d, &f) != 4 &&
        (dom = 0, sscanf(pciBusId, "%x:%x.%x", &bus, &d, &f) != 3))
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < sim_g.ndev && dom == 0 && d == 0 && f == 0; i++)
        if ((int)bus == simdev_pci_bus(sim_g.phys[i])) {
            *dev = i;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_DEVICE;           /* also a device CUDA_VISIBLE_DEVICES hides */
}

static int attr_value(CUdevice_attribute a, int dev)
{
    (void)dev;
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 49152;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 65536;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: return 1755000;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 132;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: return 0;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: return 0;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: return CU_COMPUTEMODE_DEFAULT;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH: return 131072;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT: return 65536;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT: return 16384;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH: return 16384;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT: return 512;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: return 1;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return simdev_pci_bus(sim_g.phys[dev]);
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: return 0;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: return 2619000;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: return 52428800;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 3;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: return 233472;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: return 65536;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: return 0;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: return 0;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO: return 2;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: return sim_g.hmm;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: return 1;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: return 1;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 232448;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES: return 0;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES: return sim_g.hmm;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: return 0;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: return 32;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: return 32505856;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: return 134213632;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: return CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: return 1;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: return 1;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID: return -1;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID: return -1;
    default: return 0;
    }
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    if ((int)attrib <= 0 || (int)attrib >= (int)CU_DEVICE_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    *pi = attr_value(attrib, dev);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!major || !minor)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    *major = 9;
    *minor = 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    ENTER(CUDA_ERROR_INVALID_DEVICE);
    if (!canAccessPeer)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev) || !dev_ok(peerDev))
        return CUDA_ERROR_INVALID_DEVICE;
    *canAccessPeer = sim_g.peer_ok[dev][peerDev];
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice)
{
    ENTER(CUDA_ERROR_INVALID_DEVICE);
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(srcDevice) || !dev_ok(dstDevice) || srcDevice == dstDevice)
        return CUDA_ERROR_INVALID_DEVICE;
    int ok = sim_g.peer_ok[srcDevice][dstDevice];
    switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = ok; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ---------------- contexts ---------------- */
#define CTX_STACK_MAX 64
static __thread struct sim_ctx *t_stack[CTX_STACK_MAX];
static __thread int t_depth;

struct sim_ctx *sim_cur_ctx(void)
{
    if (t_depth <= 0)
        return NULL;
    return sim_obj_get(t_stack[t_depth - 1], T_CTX);
}

/* The same without the lock held: the thread's last answer while no handle
 * has gone since (a context's id never changes; the pointer is only
 * compared and handed out, as a handle). */
static __thread struct { struct sim_ctx *handle, *ctx; unsigned long gone; } t_cur_memo;
unsigned long sim_objs_gone(void) { return atomic_load_explicit(&g_objs_gone, memory_order_acquire); }

struct sim_ctx *sim_cur_ctx_cached(void)
{
    if (t_depth <= 0)
        return NULL;
    struct sim_ctx *h = t_stack[t_depth - 1];
    unsigned long g = atomic_load_explicit(&g_objs_gone, memory_order_acquire);
    if (h == t_cur_memo.handle && g == t_cur_memo.gone)
        return t_cur_memo.ctx;
    sim_lock();
    struct sim_ctx *c = sim_cur_ctx();
    sim_unlock();
    t_cur_memo.handle = h;
    t_cur_memo.ctx = c;
    t_cur_memo.gone = g;
    return c;
}

CUresult sim_ctx_check(struct sim_ctx *c)
{
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return c->sticky;
}

CUresult sim_ctx_sync(struct sim_ctx *c)
{
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult g = sim_capture_guard();   /* a synchronisation during a capture */
    if (g != CUDA_SUCCESS)
        return g;
    if (c->fault_pending && c->sticky == CUDA_SUCCESS)
        c->sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
    return c->sticky;
}

CUresult sim_need_ctx(struct sim_ctx **out)
{
    struct sim_ctx *c = sim_cur_ctx();
    *out = c;
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return c->sticky;
}

int sim_ctx_peer_enabled(const struct sim_ctx *from, const struct sim_ctx *to)
{
    for (int i = 0; i < from->npeers; i++)
        if (from->peers[i] == to)
            return 1;
    return 0;
}

static void ctx_activate(struct sim_ctx *c)
{
    c->active = 1;
    c->sticky = CUDA_SUCCESS;
    c->fault_pending = 0;
    c->npeers = 0;
    c->id = g_next_id++;
    memset(c->limits, 0, sizeof c->limits);
    c->limits[CU_LIMIT_STACK_SIZE] = 1024;
    c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
    c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
    c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
    c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
    sim_obj_add(c, T_CTX);
}

struct collect { void **v; size_t n, cap; };
static struct collect g_collect;
static struct sim_ctx *g_gone;
static void collect_ctx_objs(const void *nodep, VISIT which, int depth)
{
    (void)depth;
    if (which != postorder && which != leaf)
        return;
    struct sim_obj *o = *(struct sim_obj *const *)nodep;
    struct sim_ctx *owner = NULL;
    if (o->type == T_STREAM)
        owner = ((struct sim_stream *)o)->ctx;
    else if (o->type == T_EVENT)
        owner = ((struct sim_event *)o)->ctx;
    else if (o->type == T_CTX) {
        struct sim_ctx *c = (struct sim_ctx *)o;
        for (int i = 0; i < c->npeers; i++)
            if (c->peers[i] == g_gone) {
                c->peers[i--] = c->peers[--c->npeers];
            }
    }
    if (owner == g_gone && g_collect.n < g_collect.cap)
        g_collect.v[g_collect.n++] = o;
}

/* Frees everything that belongs to context c (memory, streams, events,
 * modules) and unregisters it. */
static void ctx_teardown(struct sim_ctx *c)
{
    sim_mem_ctx_gone(c);
    sim_modules_ctx_gone(c);
    g_gone = c;
    for (;;) {
        g_collect.cap = 4096;
        g_collect.n = 0;
        g_collect.v = malloc(g_collect.cap * sizeof(void *));
        if (!g_collect.v)
            break;
        sim_objects_walk(collect_ctx_objs);
        for (size_t i = 0; i < g_collect.n; i++) {
            sim_obj_del(g_collect.v[i]);
            free(g_collect.v[i]);
        }
        size_t n = g_collect.n;
        free(g_collect.v);
        g_collect.v = NULL;
        if (n < g_collect.cap)
            break;
    }
    g_gone = NULL;
    free(c->peers);
    c->peers = NULL;
    c->npeers = c->cappeers = 0;
    sim_obj_del(c);
    c->active = 0;
}

/* CUPTI CONTEXT_DESTROY_STARTING for c, before anything of it goes.  Called
 * and returns with the lock held, but drops it around the callback: the
 * caller checks c's state again afterwards. */
static void ctx_destroy_note(struct sim_ctx *c)
{
    if (!sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING))
        return;
    sim_unlock();
    sim_cb_resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, (CUcontext)c, NULL);
    sim_lock();
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    struct sim_ctx *c = &sim_g.dev[dev].primary;
    int created = !c->active;
    if (created)
        ctx_activate(c);
    c->refcount++;
    *pctx = (CUcontext)c;
    sim_unlock();
    if (created)
        sim_cb_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, (CUcontext)c, NULL);
    return CUDA_SUCCESS;
}

static CUresult primary_release(CUdevice dev)
{
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    struct sim_ctx *c = &sim_g.dev[dev].primary;
    CUresult r = CUDA_SUCCESS;
    if (c->active && c->refcount == 1)
        ctx_destroy_note(c);
    if (!c->active || c->refcount == 0)
        r = CUDA_ERROR_INVALID_CONTEXT;
    else if (--c->refcount == 0)
        ctx_teardown(c);
    sim_unlock();
    return r;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return primary_release(dev); }
CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return primary_release(dev); }

static CUresult primary_reset(CUdevice dev)
{
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    struct sim_ctx *c = &sim_g.dev[dev].primary;
    int recreated = 0;
    if (c->active)
        ctx_destroy_note(c);
    if (c->active) {
        unsigned rc = c->refcount;
        ctx_teardown(c);
        if (rc) {           /* still retained: comes back fresh, as after a reset */
            ctx_activate(c);
            c->refcount = rc;
            recreated = 1;
        }
    }
    c->flags = 0;
    sim_unlock();
    if (recreated)
        sim_cb_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, (CUcontext)c, NULL);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) { ENTER(CUDA_ERROR_INVALID_DEVICE); return primary_reset(dev); }
CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev) { ENTER(CUDA_ERROR_INVALID_DEVICE); return primary_reset(dev); }

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    ENTER(CUDA_ERROR_INVALID_DEVICE);
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    *flags = sim_g.dev[dev].primary.flags;
    *active = sim_g.dev[dev].primary.active && sim_g.dev[dev].primary.refcount > 0;
    sim_unlock();
    return CUDA_SUCCESS;
}

static CUresult primary_setflags(CUdevice dev, unsigned flags)
{
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    if (flags & ~(unsigned)(CU_CTX_SCHED_MASK | CU_CTX_MAP_HOST | CU_CTX_LMEM_RESIZE_TO_MAX | CU_CTX_SYNC_MEMOPS))
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    sim_g.dev[dev].primary.flags = flags;
    sim_unlock();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return primary_setflags(dev, flags); }
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return primary_setflags(dev, flags); }

static CUresult push(struct sim_ctx *c)
{
    if (t_depth >= CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    t_stack[t_depth++] = c;
    return CUDA_SUCCESS;
}

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (!dev_ok(dev))
        return CUDA_ERROR_INVALID_DEVICE;
    struct sim_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->dev = dev;
    c->flags = flags;
    sim_lock();
    ctx_activate(c);
    sim_unlock();
    if (push(c) != CUDA_SUCCESS) {
        sim_lock();
        sim_obj_del(c);
        sim_unlock();
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pctx = (CUcontext)c;
    sim_cb_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, (CUcontext)c, NULL);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return ctx_create(pctx, flags, dev); }
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return ctx_create(pctx, flags, dev); }
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams, unsigned int flags, CUdevice dev)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    (void)paramsArray;
    if (numParams < 0)
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);
}
CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (ctxCreateParams && ctxCreateParams->execAffinityParams && ctxCreateParams->cigParams)
        return CUDA_ERROR_INVALID_VALUE;
    return ctx_create(pctx, flags, dev);
}

static CUresult ctx_destroy(CUcontext ctx)
{
    sim_lock();
    struct sim_ctx *c = sim_obj_get(ctx, T_CTX);
    if (c && !c->primary) {
        ctx_destroy_note(c);
        c = sim_obj_get(ctx, T_CTX);    /* another thread may have destroyed it meanwhile */
    }
    if (!c || c->primary) {
        sim_unlock();
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    ctx_teardown(c);
    sim_unlock();
    /* Pop it from this thread's stack if current (other threads see it vanish). */
    for (int i = t_depth - 1; i >= 0; i--)
        if (t_stack[i] == c) {
            memmove(&t_stack[i], &t_stack[i + 1], (size_t)(t_depth - i - 1) * sizeof t_stack[0]);
            t_depth--;
        }
    free(c);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_destroy(ctx); }
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_destroy(ctx); }

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = t_depth > 0 ? (CUcontext)t_stack[t_depth - 1] : NULL;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!ctx) {
        if (t_depth > 0)
            t_depth--;
        return CUDA_SUCCESS;
    }
    sim_lock();
    struct sim_ctx *c = sim_obj_get(ctx, T_CTX);
    sim_unlock();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth == 0)
        return push(c);
    t_stack[t_depth - 1] = c;
    return CUDA_SUCCESS;
}

static CUresult ctx_push(CUcontext ctx)
{
    sim_lock();
    struct sim_ctx *c = sim_obj_get(ctx, T_CTX);
    sim_unlock();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return push(c);
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_push(ctx); }
CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_push(ctx); }

static CUresult ctx_pop(CUcontext *pctx)
{
    if (t_depth <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sim_ctx *c = t_stack[--t_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_pop(pctx); }
CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx) { ENTER(CUDA_ERROR_INVALID_CONTEXT); return ctx_pop(pctx); }

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c = sim_cur_ctx();
    if (c)
        *device = c->dev;
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c = ctx ? sim_obj_get(ctx, T_CTX) : sim_cur_ctx();
    if (c)
        *device = c->dev;
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c = sim_cur_ctx();
    if (c)
        *flags = c->flags;
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxSetFlags(unsigned int flags)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    sim_lock();
    struct sim_ctx *c = sim_cur_ctx();
    if (c)
        c->flags = flags;
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!ctxId)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c = ctx ? sim_obj_get(ctx, T_CTX) : sim_cur_ctx();
    if (c)
        *ctxId = c->id;
    sim_unlock();
    return c ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c = ctx ? sim_obj_get(ctx, T_CTX) : sim_cur_ctx();
    sim_unlock();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    sim_lock();
    CUresult r = sim_ctx_sync(sim_cur_ctx());
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    sim_lock();
    CUresult r = sim_ctx_sync(ctx ? sim_obj_get(ctx, T_CTX) : sim_cur_ctx());
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!pvalue || (unsigned)limit >= 16)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS)
        *pvalue = c->limits[limit];
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if ((unsigned)limit >= 16)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS)
        c->limits[limit] = value;
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    if (!pconfig)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = CU_FUNC_CACHE_PREFER_NONE;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCacheConfig(CUfunc_cache config)
{
    ENTER(CUDA_ERROR_INVALID_CONTEXT);
    (void)config;
    return CUDA_SUCCESS;
}

static CUresult peer_enable(CUcontext peerContext, unsigned flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_ctx *p = sim_obj_get(peerContext, T_CTX);
    if (!p || p == c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (p->dev != c->dev && !sim_g.peer_ok[c->dev][p->dev])
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    if (sim_ctx_peer_enabled(c, p))
        return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    if (c->npeers == c->cappeers) {
        int nc = c->cappeers ? c->cappeers * 2 : 8;
        struct sim_ctx **np = realloc(c->peers, (size_t)nc * sizeof *np);
        if (!np)
            return CUDA_ERROR_OUT_OF_MEMORY;
        c->peers = np;
        c->cappeers = nc;
    }
    c->peers[c->npeers++] = p;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    ENTER(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    return LOCKED(peer_enable(peerContext, Flags));
}

static CUresult peer_disable(CUcontext peerContext)
{
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_ctx *p = sim_obj_get(peerContext, T_CTX);
    if (!p)
        return CUDA_ERROR_INVALID_CONTEXT;
    for (int i = 0; i < c->npeers; i++)
        if (c->peers[i] == p) {
            c->peers[i] = c->peers[--c->npeers];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    ENTER(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    return LOCKED(peer_disable(peerContext));
}

/* ---------------- streams ---------------- */
struct sim_graph *sim_stream_capture(struct sim_stream *s)
{
    if (!s || !s->capture)
        return NULL;
    if (!sim_graph_capture_live(s->capture, s->capture_id)) {
        s->capture = NULL;
        s->capture_last = NULL;
        s->capture_origin = 0;
    }
    return s->capture;
}

CUresult sim_stream_resolve(CUstream h, struct sim_ctx **ctx, struct sim_stream **s)
{
    *s = NULL;
    *ctx = NULL;
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        struct sim_ctx *c = sim_cur_ctx();
        if (!c)
            return CUDA_ERROR_INVALID_CONTEXT;
        *ctx = c;
        return CUDA_SUCCESS;
    }
    struct sim_stream *st = sim_obj_get(h, T_STREAM);
    if (!st)
        return CUDA_ERROR_INVALID_HANDLE;
    *s = st;
    *ctx = st->ctx;
    return CUDA_SUCCESS;
}

static CUresult stream_create(CUstream *ph, unsigned flags, int prio)
{
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_stream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->ctx = c;
    s->flags = flags;
    s->priority = prio > 0 ? 0 : prio < -5 ? -5 : prio;    /* clamped like the driver */
    s->id = g_next_id++;
    sim_obj_add(s, T_STREAM);
    *ph = (CUstream)s;
    return CUDA_SUCCESS;
}
/* stream_create, then CUPTI STREAM_CREATED (without the lock) */
static CUresult stream_create_note(CUstream *ph, unsigned flags, int prio)
{
    sim_lock();
    CUresult r = stream_create(ph, flags, prio);
    CUcontext ctx = r == CUDA_SUCCESS ? (CUcontext)((struct sim_stream *)*ph)->ctx : NULL;
    CUstream h = r == CUDA_SUCCESS ? *ph : NULL;
    sim_unlock();
    if (r == CUDA_SUCCESS)
        sim_cb_resource(CUPTI_CBID_RESOURCE_STREAM_CREATED, ctx, h);
    return r;
}
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return stream_create_note(phStream, Flags, 0);
}
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return stream_create_note(phStream, flags, priority);
}

static CUresult stream_destroy(CUstream h)
{
    struct sim_stream *s = sim_obj_get(h, T_STREAM);
    if (!s)
        return CUDA_ERROR_INVALID_HANDLE;
    if (sim_stream_capture(s) && s->capture_origin) {
        sim_graph_capture_set(s->capture, 0);
        sim_graph_capture_abandon(s->capture);
    }
    sim_obj_del(s);
    free(s);
    return CUDA_SUCCESS;
}
/* CUPTI STREAM_DESTROY_STARTING for a live stream, then stream_destroy */
static CUresult stream_destroy_note(CUstream h)
{
    if (sim_cb_wanted(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING)) {
        sim_lock();
        struct sim_stream *s = sim_obj_get(h, T_STREAM);
        CUcontext ctx = s ? (CUcontext)s->ctx : NULL;
        sim_unlock();
        if (s)
            sim_cb_resource(CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, ctx, h);
    }
    return LOCKED(stream_destroy(h));
}
CUresult CUDAAPI cuStreamDestroy(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return stream_destroy_note(hStream); }
CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return stream_destroy_note(hStream); }

static CUresult stream_sync(CUstream h)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS && sim_stream_capture(s))
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return r != CUDA_SUCCESS ? r : sim_ctx_sync(c);
}
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_sync(hStream)); }
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_sync(hStream)); }
/* All work completes at submission: a query finds the stream idle. */
CUresult CUDAAPI cuStreamQuery(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_sync(hStream)); }
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_sync(hStream)); }

static CUresult stream_wait(CUstream h, CUevent e, unsigned flags)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_event *ev = sim_obj_get(e, T_EVENT);
    if (!ev)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ev->cap_graph && sim_graph_capture_live(ev->cap_graph, ev->cap_id)) {
        if (!s)
            return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
        if (!sim_stream_capture(s)) {      /* fork: s joins the capture */
            s->capture = ev->cap_graph;
            s->capture_id = ev->cap_id;
            s->capture_last = ev->cap_node;
            s->capture_origin = 0;
        } else if (s->capture != ev->cap_graph)
            return CUDA_ERROR_STREAM_CAPTURE_MERGE;
    }
    return sim_ctx_check(c);    /* waits across devices are legal */
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_wait(hStream, hEvent, Flags)); }
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_wait(hStream, hEvent, Flags)); }

static CUresult stream_ctx(CUstream h, CUcontext *pctx)
{
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        *pctx = (CUcontext)c;
    return r;
}
CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_ctx(hStream, pctx)); }
CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_ctx(hStream, pctx)); }
CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    ENTER(CUDA_ERROR_INVALID_HANDLE);
    if (pGreenCtx)
        *pGreenCtx = NULL;
    return LOCKED(stream_ctx(hStream, pCtx));
}
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    ENTER(CUDA_ERROR_INVALID_HANDLE);
    if (pGreenCtx)
        *pGreenCtx = NULL;
    return LOCKED(stream_ctx(hStream, pCtx));
}

static CUresult stream_dev(CUstream h, CUdevice *d)
{
    if (!d)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        *d = c->dev;
    return r;
}
CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_dev(hStream, device)); }
CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_dev(hStream, device)); }

static CUresult stream_prio(CUstream h, int *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        *p = s ? s->priority : 0;
    return r;
}
CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_prio(hStream, priority)); }
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_prio(hStream, priority)); }

static CUresult stream_flags(CUstream h, unsigned *f)
{
    if (!f)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        *f = s ? s->flags : 0;
    return r;
}
CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_flags(hStream, flags)); }
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_flags(hStream, flags)); }

static CUresult stream_id(CUstream h, unsigned long long *id, int ptsz)
{
    if (!id)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (s)
        *id = s->id;
    else if (h == CU_STREAM_PER_THREAD || (h == NULL && ptsz))
        *id = 2;
    else
        *id = 1;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_id(hStream, streamId, 0)); }
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(stream_id(hStream, streamId, 1)); }

static CUresult host_func(CUstream h, CUhostFn fn, void *ud)
{
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        r = sim_ctx_check(c);
    int captured = r == CUDA_SUCCESS && sim_stream_capture(s);
    if (captured)
        r = sim_capture_host(s, fn, ud);
    sim_unlock();
    if (r == CUDA_SUCCESS && !captured)
        fn(ud);
    return r;
}
CUresult CUDAAPI cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) { ENTER(CUDA_ERROR_INVALID_VALUE); return host_func(hStream, fn, userData); }
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData) { ENTER(CUDA_ERROR_INVALID_VALUE); return host_func(hStream, fn, userData); }

static CUresult add_callback(CUstream h, CUstreamCallback cb, void *ud, unsigned flags)
{
    if (!cb || flags)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    CUresult st = r == CUDA_SUCCESS ? sim_ctx_check(c) : r;
    sim_unlock();
    if (r == CUDA_SUCCESS)
        cb(h, st, ud);
    return r;
}
CUresult CUDAAPI cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return add_callback(hStream, callback, userData, flags); }
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return add_callback(hStream, callback, userData, flags); }

static CUresult attach_mem(CUstream h)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    return r != CUDA_SUCCESS ? r : sim_ctx_check(c);
}
CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); (void)dptr; (void)length; (void)flags; return LOCKED(attach_mem(hStream)); }
CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_VALUE); (void)dptr; (void)length; (void)flags; return LOCKED(attach_mem(hStream)); }

/* ---------------- events ---------------- */
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (!phEvent || (Flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS) {
        struct sim_event *e = calloc(1, sizeof *e);
        if (!e)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else {
            e->ctx = c;
            e->flags = Flags;
            sim_obj_add(e, T_EVENT);
            *phEvent = (CUevent)e;
        }
    }
    sim_unlock();
    return r;
}

static CUresult event_destroy(CUevent h)
{
    struct sim_event *e = sim_obj_get(h, T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_obj_del(e);
    free(e);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy(CUevent hEvent) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_destroy(hEvent)); }
CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_destroy(hEvent)); }

static CUresult event_record(CUevent h, CUstream hs, unsigned flags)
{
    struct sim_event *e = sim_obj_get(h, T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_RECORD_EXTERNAL)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(hs, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    /* Programming Guide: fails when event and stream belong to different devices. */
    if (c->dev != e->ctx->dev)
        return CUDA_ERROR_INVALID_HANDLE;
    r = sim_ctx_check(c);
    if (r != CUDA_SUCCESS)
        return r;
    if (sim_stream_capture(s)) {           /* a capture point, not a time */
        e->cap_graph = s->capture;
        e->cap_node = s->capture_last;
        e->cap_id = s->capture_id;
        return CUDA_SUCCESS;
    }
    e->cap_graph = NULL;
    e->recorded = 1;
    e->ms = sim_now_ms();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_record(hEvent, hStream, 0)); }
CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_record(hEvent, hStream, 0)); }
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_record(hEvent, hStream, flags)); }
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_record(hEvent, hStream, flags)); }

static CUresult event_sync(CUevent h)
{
    struct sim_event *e = sim_obj_get(h, T_EVENT);
    if (!e)
        return CUDA_ERROR_INVALID_HANDLE;
    return sim_ctx_sync(e->ctx);
}
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_sync(hEvent)); }
CUresult CUDAAPI cuEventQuery(CUevent hEvent) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(event_sync(hEvent)); }

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
    if (!ms)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_event *x = sim_obj_get(a, T_EVENT), *y = sim_obj_get(b, T_EVENT);
    if (!x || !y)
        return CUDA_ERROR_INVALID_HANDLE;
    if ((x->flags | y->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!x->recorded || !y->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = sim_ctx_check(x->ctx);
    if (r != CUDA_SUCCESS)
        return r;
    *ms = (float)(y->ms - x->ms);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(elapsed(pMilliseconds, hStart, hEnd)); }
CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) { ENTER(CUDA_ERROR_INVALID_HANDLE); return LOCKED(elapsed(pMilliseconds, hStart, hEnd)); }

/* ---------------- error names and strings ---------------- */
struct errent { CUresult code; const char *name, *doc; };
static const struct errent g_errors[] = {
#define X(name, value, doc) { (CUresult)(value), #name, doc },
#include "errors_table.h"
#undef X
};

/* The real driver's wording for the common codes (as printed by
 * cudaGetErrorString and tools); the rest use the header's first sentence. */
static const char *real_string(CUresult e)
{
    switch (e) {
    case CUDA_SUCCESS: return "no error";
    case CUDA_ERROR_INVALID_VALUE: return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY: return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED: return "initialization error";
    case CUDA_ERROR_DEINITIALIZED: return "driver shutting down";
    case CUDA_ERROR_NO_DEVICE: return "no CUDA-capable device is detected";
    case CUDA_ERROR_INVALID_DEVICE: return "invalid device ordinal";
    case CUDA_ERROR_INVALID_IMAGE: return "device kernel image is invalid";
    case CUDA_ERROR_INVALID_CONTEXT: return "invalid device context";
    case CUDA_ERROR_INVALID_HANDLE: return "invalid resource handle";
    case CUDA_ERROR_NOT_FOUND: return "named symbol not found";
    case CUDA_ERROR_NOT_READY: return "device not ready";
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "an illegal memory access was encountered";
    case CUDA_ERROR_LAUNCH_FAILED: return "unspecified launch failure";
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return "peer access is not supported between these two devices";
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "peer access is already enabled";
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return "peer access has not been enabled";
    case CUDA_ERROR_NOT_SUPPORTED: return "operation not supported";
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return "too many blocks in cooperative launch";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return "part or all of the requested memory range is already mapped";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return "pointer does not correspond to a registered memory region";
    default: return NULL;
    }
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].code == error) {
            *pStr = g_errors[i].name;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const char *s = real_string(error);
    if (s) {
        *pStr = s;
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].code == error) {
            *pStr = g_errors[i].doc;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---------------- cuGetProcAddress ---------------- */
static CUresult proc_lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                            CUdriverProcAddressQueryResult *status)
{
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = NULL;
    if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
        return CUDA_ERROR_INVALID_VALUE;
    int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    /* binary search for the first entry of `symbol` (table sorted by base) */
    size_t lo = 0, hi = sim_proc_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(sim_proc_table[mid].base, symbol) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct procent *plain = NULL, *pts = NULL;
    int known = 0;
    for (size_t i = lo; i < sim_proc_count && !strcmp(sim_proc_table[i].base, symbol); i++) {
        const struct procent *p = &sim_proc_table[i];
        if (sim_proc_absent(i))
            continue;           /* the configured driver has no such symbol */
        known = 1;
        if (p->version > cudaVersion)
            continue;
        if (p->variant == 0) {
            if (!plain || p->version >= plain->version)
                plain = p;
        } else if (!pts || p->version >= pts->version)
            pts = p;
    }
    if (!known)
        return CUDA_ERROR_NOT_FOUND;
    if (!plain && !pts) {
        if (status)
            *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
        return CUDA_ERROR_NOT_FOUND;
    }
    const struct procent *pick = (per_thread && pts && pts->fn) ? pts : plain ? plain : pts;
    if (!pick->fn)
        return CUDA_ERROR_NOT_FOUND;
    *pfn = pick->fn;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return proc_lookup(symbol, pfn, cudaVersion, flags, NULL);
}

CUresult CUDAAPI cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult *symbolStatus)
{
    return proc_lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* ---------------- stream capture ----------------
 * One stream at a time: kernels, 1D copies, memsets and host functions sent
 * to a capturing stream become graph nodes, each after the previous one.
 * The legacy NULL stream cannot be captured; waiting on a capturing stream
 * is an error, as on real hardware.  An event recorded in a capturing stream
 * brings a stream that waits on it into the capture (fork/join); the capture
 * ends for all of them when its origin stream ends it.  Captured work runs
 * in the order it was captured, a valid order for every dependency. */
static CUresult begin_capture(CUstream h, CUstreamCaptureMode mode, CUgraph into, const CUgraphNode *deps, size_t ndeps)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if ((unsigned)mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    if (!s)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (sim_stream_capture(s))
        return CUDA_ERROR_ILLEGAL_STATE;
    if ((r = sim_ctx_check(c)) != CUDA_SUCCESS)
        return r;
    if (into && !sim_obj_get(into, T_GRAPH))
        return CUDA_ERROR_INVALID_VALUE;
    if (ndeps && !deps)
        return CUDA_ERROR_INVALID_VALUE;
    s->capture = into ? (struct sim_graph *)into : sim_graph_new();
    if (!s->capture)
        return CUDA_ERROR_OUT_OF_MEMORY;
    /* captured work depends on the stream's previous node: one of deps */
    s->capture_last = ndeps ? sim_obj_get(deps[ndeps - 1], T_GNODE) : NULL;
    s->capture_id = g_next_id++;
    s->capture_origin = 1;
    sim_graph_capture_begin(s->capture, s->capture_id, mode, into != NULL);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL, 0)); }
CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL, NULL, 0)); }
CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(begin_capture(hStream, mode, NULL, NULL, 0)); }
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(begin_capture(hStream, mode, NULL, NULL, 0)); }
CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode)
{ ENTER(CUDA_ERROR_ILLEGAL_STATE); (void)dependencyData; return LOCKED(begin_capture(hStream, mode, hGraph ? hGraph : (CUgraph)-1, dependencies, numDependencies)); }
CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode)
{ ENTER(CUDA_ERROR_ILLEGAL_STATE); (void)dependencyData; return LOCKED(begin_capture(hStream, mode, hGraph ? hGraph : (CUgraph)-1, dependencies, numDependencies)); }

static CUresult end_capture(CUstream h, CUgraph *out)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!sim_stream_capture(s))
        return CUDA_ERROR_ILLEGAL_STATE;
    if (!s->capture_origin)
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    int invalid = sim_graph_capture_invalid(s->capture);
    *out = invalid ? NULL : (CUgraph)s->capture;
    sim_graph_capture_set(s->capture, 0);    /* ends it for joined streams too */
    if (invalid)
        sim_graph_capture_abandon(s->capture);
    s->capture = NULL;
    s->capture_last = NULL;
    s->capture_origin = 0;
    return invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(end_capture(hStream, phGraph)); }
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) { ENTER(CUDA_ERROR_ILLEGAL_STATE); return LOCKED(end_capture(hStream, phGraph)); }

static CUresult capture_status_locked(CUstream h, CUstreamCaptureStatus *st, struct sim_stream **ps)
{
    if (!st)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(h, &c, &s);
    if (r == CUDA_SUCCESS)
        *st = !sim_stream_capture(s) ? CU_STREAM_CAPTURE_STATUS_NONE :
              sim_graph_capture_invalid(s->capture) ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    *ps = s;
    return r;
}
static CUresult capture_status(CUstream h, CUstreamCaptureStatus *st)
{
    struct sim_stream *s;
    return LOCKED(capture_status_locked(h, st, &s));
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus) { ENTER(CUDA_ERROR_INVALID_VALUE); return capture_status(hStream, captureStatus); }
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus) { ENTER(CUDA_ERROR_INVALID_VALUE); return capture_status(hStream, captureStatus); }

static CUresult capture_info_locked(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                                    const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *n)
{
    struct sim_stream *s;
    CUresult r = capture_status_locked(h, st, &s);
    if (r != CUDA_SUCCESS)
        return r;
    int active = sim_stream_capture(s) != NULL;
    if (id)
        *id = active ? s->capture_id : 0;
    if (g)
        *g = active ? (CUgraph)s->capture : NULL;
    if (deps)   /* the stream keeps its last node, so the array can point at it */
        *deps = active && s->capture_last ? (const CUgraphNode *)&s->capture_last : NULL;
    if (edges)
        *edges = NULL;
    if (n)
        *n = active && s->capture_last ? 1 : 0;
    return CUDA_SUCCESS;
}
static CUresult capture_info(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id, CUgraph *g,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges, size_t *n)
{
    return LOCKED(capture_info_locked(h, st, id, g, deps, edges, n));
}
CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL); }
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, NULL, NULL, NULL, NULL); }
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out); }
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, size_t *numDependencies_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, NULL, numDependencies_out); }
CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out); }
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out, cuuint64_t *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out, const CUgraphEdgeData **edgeData_out, size_t *numDependencies_out)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return capture_info(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out, numDependencies_out); }

static __thread CUstreamCaptureMode t_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
CUstreamCaptureMode sim_thread_capture_mode(void) { return t_capture_mode; }
CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!mode || (unsigned)*mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode old = t_capture_mode;
    t_capture_mode = *mode;
    *mode = old;
    return CUDA_SUCCESS;
}

/* ---------------- IPC events ---------------- */
struct ipc_event_payload { char magic[8]; int pid; int dev; unsigned long long id; };

CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_event *e = sim_obj_get(event, T_EVENT);
    CUresult r = CUDA_SUCCESS;
    if (!e)
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (!(e->flags & CU_EVENT_INTERPROCESS))
        r = CUDA_ERROR_INVALID_VALUE;
    else {
        struct ipc_event_payload pl = { "SIMEVT", (int)getpid(), e->ctx->dev, (unsigned long long)(uintptr_t)e };
        memset(pHandle, 0, sizeof *pHandle);
        memcpy(pHandle->reserved, &pl, sizeof pl);
    }
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!phEvent)
        return CUDA_ERROR_INVALID_VALUE;
    struct ipc_event_payload pl;
    memcpy(&pl, handle.reserved, sizeof pl);
    if (memcmp(pl.magic, "SIMEVT", 7))
        return CUDA_ERROR_INVALID_VALUE;
    /* from this process or another: a fresh event of the opener (all work
     * completes at submission, so there is nothing to wait for) */
    sim_lock();
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS) {
        struct sim_event *e = calloc(1, sizeof *e);
        if (!e)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        else {
            e->ctx = c;
            e->flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
            sim_obj_add(e, T_EVENT);
            *phEvent = (CUevent)e;
        }
    }
    sim_unlock();
    return r;
}
