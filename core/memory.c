/* hooks_mem: allocation, free and access-grant hooks -> registry.
 *
 * Rules:
 *  - An allocation is recorded after the real call succeeded (the address is
 *    ours until freed, so no other thread can race us on it).
 *  - A free removes the entry *before* the real call (after it, another thread
 *    could get the same address and record it first); if the real free fails,
 *    the entry is put back.
 *  - Failure inside devcheck (registry full, no memory) skips the record and
 *    never changes the program's result.
 *  - One recording function per event (dc_mem_*, preload.h): the hooks here
 *    and the CUPTI callbacks (cupti/) both call them, so an allocation seen
 *    by either path enters the registry the same way. */
#include "preload/preload.h"
#include "core/registry.h"
#include "report/stack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* --- driver queries -------------------------------------------------------- */

int dc_current_device(void)
{
    CUcontext c = NULL;
    CUdevice d;
    if (DC_REAL(cuCtxGetCurrent, &c) != CUDA_SUCCESS || !c)
        return -1;
    if (DC_REAL(cuCtxGetDevice, &d) != CUDA_SUCCESS)
        return -1;
    return (int)d;
}

int dc_ctx_device(CUcontext ctx)
{
    CUcontext cur = NULL, popped;
    CUdevice d;
    if (!ctx)
        return dc_current_device();
    if (DC_REAL(cuCtxGetCurrent, &cur) == CUDA_SUCCESS && cur == ctx)
        return DC_REAL(cuCtxGetDevice, &d) == CUDA_SUCCESS ? (int)d : -1;
    if (DC_REAL(cuCtxPushCurrent_v2, ctx) != CUDA_SUCCESS)
        return -1;
    int dev = DC_REAL(cuCtxGetDevice, &d) == CUDA_SUCCESS ? (int)d : -1;
    DC_REAL(cuCtxPopCurrent_v2, &popped);
    return dev;
}

int dc_stream_device(CUstream s)
{
    if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD)
        return dc_current_device();
    CUcontext c = NULL;
    if (DC_REAL(cuStreamGetCtx, s, &c) != CUDA_SUCCESS || !c)
        return -1;
    return dc_ctx_device(c);
}

static int pageable_cache[DC_MAX_DEVICES];      /* 0 unknown, else value + 1 */

int dc_pageable_ok(int device)
{
    if (device < 0 || device >= DC_MAX_DEVICES)
        return 0;
    int v = __atomic_load_n(&pageable_cache[device], __ATOMIC_RELAXED);
    if (v)
        return v - 1;
    int attr = 0;
    if (DC_REAL(cuDeviceGetAttribute, &attr, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, device) != CUDA_SUCCESS)
        attr = 0;
    attr = attr != 0;
    __atomic_store_n(&pageable_cache[device], attr + 1, __ATOMIC_RELAXED);
    return attr;
}

static int ptr_device(CUdeviceptr p)
{
    int ord = -1;
    if (DC_REAL(cuPointerGetAttribute, &ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) != CUDA_SUCCESS)
        return -1;
    return ord;
}

/* --- recording ----------------------------------------------------------------- */

static void record(uintptr_t base, size_t size, enum dc_mem_kind kind, int owner, dc_devmask access,
                   uint64_t pool, uint32_t stack)
{
    if (!base || !size)
        return;
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = size;
    a.kind = kind;
    a.owner = owner;
    a.access = access;
    a.pool = pool;
    a.alloc_stack = stack;
    /* device, pool, IPC and managed memory die with the context current
     * when they were made (dc_mem_forget_context) */
    if (kind == DC_MEM_DEVICE || kind == DC_MEM_POOL || kind == DC_MEM_IPC || kind == DC_MEM_MANAGED) {
        CUcontext c = NULL;
        if (DC_REAL(cuCtxGetCurrent, &c) == CUDA_SUCCESS)
            a.ctx = (uint64_t)(uintptr_t)c;
    }
    (void)dc_reg_add(&a);       /* -1: not recorded, the program goes on */
}

/* Stack of the program's allocating call: the hook is the innermost frame. */
#define CAPTURE() dc_stack_capture(0)

void dc_mem_alloc_current(uintptr_t base, size_t size, enum dc_mem_kind kind)
{
    record(base, size, kind, dc_current_device(), 0, 0, CAPTURE());
}

void dc_mem_host(uintptr_t base, size_t size, enum dc_mem_kind kind)
{
    record(base, size, kind, -1, 0, 0, CAPTURE());
}

int dc_mem_free_begin(uintptr_t base, struct dc_alloc *saved)
{
    return dc_reg_remove(base, saved) == 0;
}

void dc_mem_free_end(int had, const struct dc_alloc *saved, int ok)
{
    if (!ok && had)
        (void)dc_reg_add(saved);
}

/* Free: remove first, restore if the real free failed. */
#define FREE_HOOK(call, base)                                             \
    do {                                                                  \
        struct dc_alloc old_;                                             \
        int had_ = dc_mem_free_begin((uintptr_t)(base), &old_);           \
        r = (call);                                                       \
        dc_mem_free_end(had_, &old_, r == CUDA_SUCCESS);                  \
    } while (0)

DC_EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    if (!dc_enter())
        return DC_REAL(cuMemAlloc_v2, dptr, bytesize);
    CUresult r = DC_REAL(cuMemAlloc_v2, dptr, bytesize);
    if (r == CUDA_SUCCESS && dptr)
        dc_mem_alloc_current(*dptr, bytesize, DC_MEM_DEVICE);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                              size_t Height, unsigned int ElementSizeBytes)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocPitch_v2, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    CUresult r = DC_REAL(cuMemAllocPitch_v2, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    if (r == CUDA_SUCCESS && dptr && pPitch)
        dc_mem_alloc_current(*dptr, *pPitch * Height, DC_MEM_DEVICE);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocManaged, dptr, bytesize, flags);
    CUresult r = DC_REAL(cuMemAllocManaged, dptr, bytesize, flags);
    if (r == CUDA_SUCCESS && dptr)
        dc_mem_alloc_current(*dptr, bytesize, DC_MEM_MANAGED);
    dc_leave();
    return r;
}

/* Stream-ordered allocations: owner is the device the memory lives on (the
 * pointer's ordinal, else the stream's device); access comes from the pool. */
void dc_mem_pool_alloc(CUdeviceptr p, size_t size, CUmemoryPool pool, CUstream s)
{
    uint32_t stack = CAPTURE();
    int dev = ptr_device(p);
    if (dev < 0)
        dev = dc_stream_device(s);
    if (!pool && dev >= 0 && dc_real_cuDeviceGetMemPool)
        (void)DC_REAL(cuDeviceGetMemPool, &pool, dev);
    record(p, size, DC_MEM_POOL, dev, 0, (uint64_t)(uintptr_t)pool, stack);
}

#define ALLOC_ASYNC(name)                                                       \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, bytesize, hStream);                      \
        CUresult r = DC_REAL(name, dptr, bytesize, hStream);                    \
        if (r == CUDA_SUCCESS && dptr)                                          \
            dc_mem_pool_alloc(*dptr, bytesize, NULL, hStream);                  \
        dc_leave();                                                             \
        return r;                                                               \
    }
ALLOC_ASYNC(cuMemAllocAsync)
ALLOC_ASYNC(cuMemAllocAsync_ptsz)

#define ALLOC_FROM_POOL(name)                                                   \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, bytesize, pool, hStream);                \
        CUresult r = DC_REAL(name, dptr, bytesize, pool, hStream);              \
        if (r == CUDA_SUCCESS && dptr)                                          \
            dc_mem_pool_alloc(*dptr, bytesize, pool, hStream);                  \
        dc_leave();                                                             \
        return r;                                                               \
    }
ALLOC_FROM_POOL(cuMemAllocFromPoolAsync)
ALLOC_FROM_POOL(cuMemAllocFromPoolAsync_ptsz)

DC_EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    if (!dc_enter())
        return DC_REAL(cuMemFree_v2, dptr);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemFree_v2, dptr), dptr);
    dc_leave();
    return r;
}

#define FREE_ASYNC(name)                                                        \
    DC_EXPORT CUresult CUDAAPI name(CUdeviceptr dptr, CUstream hStream)         \
    {                                                                           \
        if (!dc_enter())                                                        \
            return DC_REAL(name, dptr, hStream);                                \
        CUresult r;                                                             \
        FREE_HOOK(DC_REAL(name, dptr, hStream), dptr);                          \
        dc_leave();                                                             \
        return r;                                                               \
    }
FREE_ASYNC(cuMemFreeAsync)
FREE_ASYNC(cuMemFreeAsync_ptsz)

DC_EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostAlloc, pp, bytesize, Flags);
    CUresult r = DC_REAL(cuMemHostAlloc, pp, bytesize, Flags);
    if (r == CUDA_SUCCESS && pp)
        dc_mem_host((uintptr_t)*pp, bytesize, DC_MEM_HOST_PINNED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    if (!dc_enter())
        return DC_REAL(cuMemAllocHost_v2, pp, bytesize);
    CUresult r = DC_REAL(cuMemAllocHost_v2, pp, bytesize);
    if (r == CUDA_SUCCESS && pp)
        dc_mem_host((uintptr_t)*pp, bytesize, DC_MEM_HOST_PINNED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemFreeHost(void *p)
{
    if (!dc_enter())
        return DC_REAL(cuMemFreeHost, p);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemFreeHost, p), p);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostRegister_v2, p, bytesize, Flags);
    CUresult r = DC_REAL(cuMemHostRegister_v2, p, bytesize, Flags);
    if (r == CUDA_SUCCESS)
        dc_mem_host((uintptr_t)p, bytesize, DC_MEM_HOST_REGISTERED);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p)
{
    if (!dc_enter())
        return DC_REAL(cuMemHostUnregister, p);
    CUresult r;
    FREE_HOOK(DC_REAL(cuMemHostUnregister, p), p);
    dc_leave();
    return r;
}

/* --- IPC ------------------------------------------------------------------- */

/* The imported range (base and size from the driver) lives on the exporting
 * device; with lazy peer access the importing context's device may access it. */
void dc_mem_ipc_open(CUdeviceptr p, unsigned int flags)
{
    CUdeviceptr base = p;
    size_t size = 0;
    if (DC_REAL(cuMemGetAddressRange_v2, &base, &size, p) != CUDA_SUCCESS || !size) {
        base = p;
        size = 1;
    }
    int owner = ptr_device(p);
    int cur = dc_current_device();
    dc_devmask access = 0;
    if ((flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) && cur >= 0 && cur < DC_MAX_DEVICES)
        access = DC_DEV_BIT(cur);
    record(base, size, DC_MEM_IPC, owner >= 0 ? owner : cur, access, 0, CAPTURE());
}

DC_EXPORT CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuIpcOpenMemHandle_v2, pdptr, handle, Flags);
    CUresult r = DC_REAL(cuIpcOpenMemHandle_v2, pdptr, handle, Flags);
    if (r == CUDA_SUCCESS && pdptr)
        dc_mem_ipc_open(*pdptr, Flags);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    if (!dc_enter())
        return DC_REAL(cuIpcCloseMemHandle, dptr);
    CUresult r;
    FREE_HOOK(DC_REAL(cuIpcCloseMemHandle, dptr), dptr);
    dc_leave();
    return r;
}

/* --- pools ------------------------------------------------------------------- */

DC_EXPORT CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolCreate, pool, poolProps);
    CUresult r = DC_REAL(cuMemPoolCreate, pool, poolProps);
    /* The pool's own device may always access it; other devices only by
     * cuMemPoolSetAccess.  The registry's owner check covers the former. */
    dc_leave();
    return r;
}

void dc_mem_pool_access(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    for (size_t i = 0; i < count && map; i++) {
        if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            continue;
        int dev = map[i].location.id;
        if (dev >= 0 && dev < DC_MAX_DEVICES)
            dc_reg_pool_set_access((uint64_t)(uintptr_t)pool, dev, map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE);
    }
}

DC_EXPORT CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolSetAccess, pool, map, count);
    CUresult r = DC_REAL(cuMemPoolSetAccess, pool, map, count);
    if (r == CUDA_SUCCESS)
        dc_mem_pool_access(pool, map, count);
    dc_leave();
    return r;
}

void dc_mem_pool_import(CUdeviceptr p, CUmemoryPool pool)
{
    CUdeviceptr base = p;
    size_t size = 0;
    if (DC_REAL(cuMemGetAddressRange_v2, &base, &size, p) != CUDA_SUCCESS || !size) {
        base = p;
        size = 1;
    }
    record(base, size, DC_MEM_POOL, ptr_device(p), 0, (uint64_t)(uintptr_t)pool, CAPTURE());
}

DC_EXPORT CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                                  CUmemPoolPtrExportData *shareData)
{
    if (!dc_enter())
        return DC_REAL(cuMemPoolImportPointer, ptr_out, pool, shareData);
    CUresult r = DC_REAL(cuMemPoolImportPointer, ptr_out, pool, shareData);
    if (r == CUDA_SUCCESS && ptr_out)
        dc_mem_pool_import(*ptr_out, pool);
    dc_leave();
    return r;
}

/* --- graph memory nodes ----------------------------------------------------- *
 * The node fixes the address when it is added; the memory lives on the pool
 * location's device, accessible there and wherever accessDescs grant it.
 * Recorded as pool memory of no pool (its access is the grant mask). */
void dc_mem_graph_alloc_node(const CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    int owner = p->poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE ? p->poolProps.location.id : -1;
    dc_devmask access = 0;
    for (size_t i = 0; p->accessDescs && i < p->accessDescCount; i++) {
        const CUmemAccessDesc *d = &p->accessDescs[i];
        if (d->location.type == CU_MEM_LOCATION_TYPE_DEVICE && d->location.id >= 0 &&
            d->location.id < DC_MAX_DEVICES && d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE)
            access |= DC_DEV_BIT(d->location.id);
    }
    record(p->dptr, p->bytesize, DC_MEM_POOL, owner, access, 0, CAPTURE());
}

DC_EXPORT CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                                  const CUgraphNode *dependencies, size_t numDependencies,
                                                  CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    if (!dc_enter())
        return DC_REAL(cuGraphAddMemAllocNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    CUresult r = DC_REAL(cuGraphAddMemAllocNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
    if (r == CUDA_SUCCESS && nodeParams)
        dc_mem_graph_alloc_node(nodeParams);
    dc_leave();
    return r;
}

/* --- virtual memory management -------------------------------------------- *
 * cuMemCreate makes a physical allocation (handle -> device); cuMemMap maps
 * (part of) it at an address: that mapping is what kernels see, recorded as a
 * DC_MEM_VMM range owned by the handle's device, accessible only where
 * cuMemSetAccess granted.  We keep our own list of live mappings so that
 * cuMemUnmap / cuMemAddressFree of a range drop every mapping inside it. */

struct handle_rec {
    CUmemGenericAllocationHandle handle;
    int device;
    UT_hash_handle hh;
};
struct map_rec {
    uintptr_t base;
    size_t size;
    UT_hash_handle hh;
};
/* vmm_lock guards `handles` and `mappings` only; nothing else is called
 * while it is held. */
static pthread_mutex_t vmm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle_rec *handles;
static struct map_rec *mappings;

/* peer_lock guards the context-pair peer links (below); like vmm_lock, nothing
 * else is called while it is held. */
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;

void dc_mem_fork_prepare(void)
{
    pthread_mutex_lock(&vmm_lock);
    pthread_mutex_lock(&peer_lock);
}
void dc_mem_fork_parent(void)
{
    pthread_mutex_unlock(&peer_lock);
    pthread_mutex_unlock(&vmm_lock);
}
void dc_mem_fork_child(void)
{
    pthread_mutex_init(&vmm_lock, NULL);
    pthread_mutex_init(&peer_lock, NULL);
}

/* Puts malloc'ed rec into table `head`, keyed by rec->field, under vmm_lock:
 * the entry it replaces is freed; rec is freed when uthash ran out of memory
 * (then it is not added). */
#define VMM_PUT(head, field, rec)                                              \
    do {                                                                       \
        __typeof__(rec) old_;                                                  \
        pthread_mutex_lock(&vmm_lock);                                         \
        HASH_FIND(hh, head, &(rec)->field, sizeof (rec)->field, old_);         \
        if (old_) {                                                            \
            HASH_DEL(head, old_);                                              \
            free(old_);                                                        \
        }                                                                      \
        HASH_ADD(hh, head, field, sizeof (rec)->field, rec);                   \
        HASH_FIND(hh, head, &(rec)->field, sizeof (rec)->field, old_);         \
        pthread_mutex_unlock(&vmm_lock);                                       \
        if (!old_)                                                             \
            free(rec);                                                         \
    } while (0)

static int location_device(const CUmemLocation *loc)
{
    return loc->type == CU_MEM_LOCATION_TYPE_DEVICE ? loc->id : -1;
}

void dc_mem_vmm_create(CUmemGenericAllocationHandle handle, const CUmemAllocationProp *prop)
{
    struct handle_rec *h = malloc(sizeof *h);
    if (!h)
        return;
    h->handle = handle;
    h->device = location_device(&prop->location);
    VMM_PUT(handles, handle, h);
}

DC_EXPORT CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                       const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemCreate, handle, size, prop, flags);
    CUresult r = DC_REAL(cuMemCreate, handle, size, prop, flags);
    if (r == CUDA_SUCCESS && handle && prop)
        dc_mem_vmm_create(*handle, prop);
    dc_leave();
    return r;
}

/* Mappings of it stay valid until unmapped: only the handle goes. */
void dc_mem_vmm_release(CUmemGenericAllocationHandle handle)
{
    pthread_mutex_lock(&vmm_lock);
    struct handle_rec *h;
    HASH_FIND(hh, handles, &handle, sizeof handle, h);
    if (h) {
        HASH_DEL(handles, h);
        free(h);
    }
    pthread_mutex_unlock(&vmm_lock);
}

DC_EXPORT CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle)
{
    if (!dc_enter())
        return DC_REAL(cuMemRelease, handle);
    CUresult r = DC_REAL(cuMemRelease, handle);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_release(handle);
    dc_leave();
    return r;
}

static int handle_device(CUmemGenericAllocationHandle handle)
{
    int dev = -1;
    pthread_mutex_lock(&vmm_lock);
    struct handle_rec *h;
    HASH_FIND(hh, handles, &handle, sizeof handle, h);
    if (h)
        dev = h->device;
    pthread_mutex_unlock(&vmm_lock);
    if (dev < 0 && dc_real_cuMemGetAllocationPropertiesFromHandle) {
        /* imported (cuMemImportFromShareableHandle) or created before us */
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof prop);
        if (DC_REAL(cuMemGetAllocationPropertiesFromHandle, &prop, handle) == CUDA_SUCCESS)
            dev = location_device(&prop.location);
    }
    return dev;
}

void dc_mem_vmm_map(CUdeviceptr ptr, size_t size, CUmemGenericAllocationHandle handle)
{
    if (!ptr || !size)
        return;
    int dev = handle_device(handle);
    struct map_rec *m = malloc(sizeof *m);
    if (m) {
        m->base = (uintptr_t)ptr;
        m->size = size;
        VMM_PUT(mappings, base, m);
    }
    record((uintptr_t)ptr, size, DC_MEM_VMM, dev, 0, 0, CAPTURE());
}

DC_EXPORT CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                                    CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    if (!dc_enter())
        return DC_REAL(cuMemMap, ptr, size, offset, handle, flags);
    CUresult r = DC_REAL(cuMemMap, ptr, size, offset, handle, flags);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_map(ptr, size, handle);
    dc_leave();
    return r;
}

/* Drops every mapping inside [base, base+size) from our list and the registry.
 * The registry is called after vmm_lock is released: vmm_lock is never held
 * while another lock is taken (the fork handlers take the core's locks first,
 * then ours). */
void dc_mem_vmm_unmap(uintptr_t base, size_t size)
{
    struct map_rec *m, *tmp, *gone = NULL;
    pthread_mutex_lock(&vmm_lock);
    HASH_ITER(hh, mappings, m, tmp) {
        if (m->base >= base && m->base - base < size) {
            HASH_DEL(mappings, m);
            m->hh.next = gone;          /* off the table: reuse the link */
            gone = m;
        }
    }
    pthread_mutex_unlock(&vmm_lock);
    while (gone) {
        m = gone;
        gone = m->hh.next;
        (void)dc_reg_remove(m->base, NULL);
        free(m);
    }
}

DC_EXPORT CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    if (!dc_enter())
        return DC_REAL(cuMemUnmap, ptr, size);
    CUresult r = DC_REAL(cuMemUnmap, ptr, size);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_unmap((uintptr_t)ptr, size);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                               CUdeviceptr addr, unsigned long long flags)
{
    /* A reservation has no backing: nothing a kernel may touch until mapped,
     * so nothing to record; hooked so the address space is seen whole. */
    if (!dc_enter())
        return DC_REAL(cuMemAddressReserve, ptr, size, alignment, addr, flags);
    CUresult r = DC_REAL(cuMemAddressReserve, ptr, size, alignment, addr, flags);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    if (!dc_enter())
        return DC_REAL(cuMemAddressFree, ptr, size);
    CUresult r = DC_REAL(cuMemAddressFree, ptr, size);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_unmap((uintptr_t)ptr, size);
    dc_leave();
    return r;
}

void dc_mem_vmm_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    for (size_t i = 0; desc && i < count; i++) {
        int dev = location_device(&desc[i].location);
        if (dev >= 0 && dev < DC_MAX_DEVICES)
            dc_reg_set_access((uintptr_t)ptr, size, dev, desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE);
    }
}

DC_EXPORT CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    if (!dc_enter())
        return DC_REAL(cuMemSetAccess, ptr, size, desc, count);
    CUresult r = DC_REAL(cuMemSetAccess, ptr, size, desc, count);
    if (r == CUDA_SUCCESS)
        dc_mem_vmm_set_access(ptr, size, desc, count);
    dc_leave();
    return r;
}

/* --- peer access and contexts ------------------------------------------------ */

/* Peer access is enabled per context pair (the current context may access the
 * peer context's memory); the registry keeps it per device pair.  The live
 * context pairs are kept here so that a destroyed context ends exactly its own
 * links: a device pair stays enabled while any context pair between the two
 * devices is.  Past MAX_PEER_LINKS pairs, links are no longer tracked and a
 * destroyed context leaves the device pairs as they are (a stale link can hide
 * a finding; it never makes one). */
#define MAX_PEER_LINKS 1024
struct peer_link {
    CUcontext from, to;
    int from_dev, to_dev;
};
static struct peer_link links[MAX_PEER_LINKS];     /* under peer_lock */
static unsigned nlinks;
static int links_overflow;

/* peer_lock held: is a context pair left between devices a -> b? */
static int pair_linked(int a, int b)
{
    for (unsigned i = 0; i < nlinks; i++)
        if (links[i].from_dev == a && links[i].to_dev == b)
            return 1;
    return 0;
}

void dc_mem_peer(CUcontext peer, int enable)
{
    CUcontext from = NULL;
    int from_dev = dc_current_device();
    int to_dev = dc_ctx_device(peer);
    if (from_dev < 0 || to_dev < 0 || DC_REAL(cuCtxGetCurrent, &from) != CUDA_SUCCESS || !from)
        return;
    pthread_mutex_lock(&peer_lock);
    unsigned i = 0;
    while (i < nlinks && !(links[i].from == from && links[i].to == peer))
        i++;
    if (enable && i == nlinks) {
        if (nlinks < MAX_PEER_LINKS)
            links[nlinks++] = (struct peer_link){ from, peer, from_dev, to_dev };
        else
            links_overflow = 1;
    } else if (!enable && i < nlinks) {
        links[i] = links[--nlinks];
    }
    int on = enable || pair_linked(from_dev, to_dev);
    pthread_mutex_unlock(&peer_lock);
    dc_reg_set_peer(from_dev, to_dev, on);
}

/* A destroyed or reset context takes with it the device, pool, IPC and
 * managed memory made in it and the peer links it took part in; other
 * contexts on the same device keep theirs.  VMM mappings and host memory
 * outlive contexts. */
void dc_mem_forget_context(CUcontext ctx)
{
    if (!ctx)
        return;
    (void)dc_reg_drop_ctx((uint64_t)(uintptr_t)ctx, (1u << DC_MEM_DEVICE) | (1u << DC_MEM_POOL) |
                                                    (1u << DC_MEM_IPC) | (1u << DC_MEM_MANAGED));
    dc_devmask ended[DC_MAX_DEVICES];       /* ended[a] bit b: pair a -> b lost its last link */
    memset(ended, 0, sizeof ended);
    pthread_mutex_lock(&peer_lock);
    for (unsigned i = 0; i < nlinks;) {
        if (links[i].from == ctx || links[i].to == ctx) {
            if (links[i].from_dev < DC_MAX_DEVICES && links[i].to_dev < DC_MAX_DEVICES)
                ended[links[i].from_dev] |= DC_DEV_BIT(links[i].to_dev);
            links[i] = links[--nlinks];
        } else {
            i++;
        }
    }
    for (int a = 0; a < DC_MAX_DEVICES; a++)
        for (int b = 0; ended[a] && b < DC_MAX_DEVICES; b++)
            if ((ended[a] & DC_DEV_BIT(b)) && (links_overflow || pair_linked(a, b)))
                ended[a] &= ~DC_DEV_BIT(b);
    pthread_mutex_unlock(&peer_lock);
    for (int a = 0; a < DC_MAX_DEVICES; a++)
        for (int b = 0; ended[a] && b < DC_MAX_DEVICES; b++)
            if (ended[a] & DC_DEV_BIT(b))
                dc_reg_set_peer(a, b, 0);
}

DC_EXPORT CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    if (!dc_enter())
        return DC_REAL(cuCtxEnablePeerAccess, peerContext, Flags);
    CUresult r = DC_REAL(cuCtxEnablePeerAccess, peerContext, Flags);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        dc_mem_peer(peerContext, 1);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    if (!dc_enter())
        return DC_REAL(cuCtxDisablePeerAccess, peerContext);
    CUresult r = DC_REAL(cuCtxDisablePeerAccess, peerContext);
    if (r == CUDA_SUCCESS || r == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
        dc_mem_peer(peerContext, 0);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    if (!dc_enter())
        return DC_REAL(cuCtxDestroy_v2, ctx);
    CUresult r = DC_REAL(cuCtxDestroy_v2, ctx);
    if (r == CUDA_SUCCESS)
        dc_mem_forget_context(ctx);
    dc_leave();
    return r;
}

/* The device's primary context if it is active (a retain would create an
 * inactive one), else NULL. */
static CUcontext active_primary(CUdevice dev)
{
    unsigned int flags = 0;
    int active = 0;
    CUcontext c = NULL;
    if (DC_REAL(cuDevicePrimaryCtxGetState, dev, &flags, &active) != CUDA_SUCCESS || !active ||
        DC_REAL(cuDevicePrimaryCtxRetain, &c, dev) != CUDA_SUCCESS)
        return NULL;
    (void)DC_REAL(cuDevicePrimaryCtxRelease_v2, dev);
    return c;
}

DC_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    if (!dc_enter())
        return DC_REAL(cuDevicePrimaryCtxReset_v2, dev);
    CUcontext primary = active_primary(dev);    /* the reset destroys it */
    CUresult r = DC_REAL(cuDevicePrimaryCtxReset_v2, dev);
    if (r == CUDA_SUCCESS)
        dc_mem_forget_context(primary);
    dc_leave();
    return r;
}
