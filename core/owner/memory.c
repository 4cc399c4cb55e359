/* memory: the memory events of both front ends -> the registry.
 *
 * Rules:
 *  - An allocation is recorded after the real call succeeded (the address is
 *    the program's until freed, so no other thread can race us on it).
 *  - A free removes the entry *before* the real call (after it, another thread
 *    could get the same address and record it first); if the real free fails,
 *    the entry is put back.
 *  - Failure inside devcheck (registry full, no memory) skips the record and
 *    never changes the program's result.
 *  - One recording function per event (dc_mem_*, core/core.h): the hooks
 *    (preload/hooks_mem.c) and the CUPTI callbacks (cupti/) both call them,
 *    so an allocation seen by either path enters the registry the same way.
 *    The caller holds the guard. */
#include "core/owner/memory.h"
#include "core/base/cudacall.h"
#include "core/owner/ptrinfo.h"
#include "core/owner/registry.h"
#include "common/forklock.h"
#include "report/stack.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(obj) do { (void)(obj); } while (0)
#include <uthash.h>

/* --- recording ----------------------------------------------------------------- */

/* ctx: the current context when the caller asked already (NULL: ask). */
static void record_in(uintptr_t base, size_t size, enum dc_mem_kind kind, int owner, dc_devmask access,
                      uint64_t pool, uint32_t stack, CUcontext ctx)
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
     * when they were made (dc_ctx_destroyed, core/contexts.c) */
    if (kind == DC_MEM_DEVICE || kind == DC_MEM_POOL || kind == DC_MEM_IPC || kind == DC_MEM_MANAGED) {
        CUcontext c = ctx;
        if (c || DC_CALL(cuCtxGetCurrent, &c) == CUDA_SUCCESS)
            a.ctx = (uint64_t)(uintptr_t)c;
    }
    (void)dc_reg_add(&a);       /* -1: not recorded, the program goes on */
}

static void record(uintptr_t base, size_t size, enum dc_mem_kind kind, int owner, dc_devmask access,
                   uint64_t pool, uint32_t stack)
{
    record_in(base, size, kind, owner, access, pool, stack, NULL);
}

/* Stack of the program's allocating call: the hook is the innermost frame. */
#define CAPTURE() dc_stack_capture(0)

/* At most one question to the driver: the current context (unless the
 * caller knows it), whose device is cached. */
void dc_mem_alloc_current(uintptr_t base, size_t size, enum dc_mem_kind kind, CUcontext ctx)
{
    CUcontext c = ctx;
    int dev = (c || DC_CALL(cuCtxGetCurrent, &c) == CUDA_SUCCESS) && c ? dc_current_ctx_device(c) : -1;
    record_in(base, size, kind, dev, 0, 0, CAPTURE(), c);
}

void dc_mem_alloc_hooked(uintptr_t base, size_t size, enum dc_mem_kind kind)
{
    CUcontext c;
    int dev = dc_current_ctx_tracked(&c);
    record_in(base, size, kind, dev, 0, 0, CAPTURE(), c);
}

void dc_mem_host(uintptr_t base, size_t size, enum dc_mem_kind kind)
{
    record(base, size, kind, -1, 0, 0, CAPTURE());
}

/* One free is often seen twice on a thread, nested: a runtime free (CUPTI's
 * runtime callbacks) around its driver free (the hooks, or CUPTI's driver
 * callbacks).  The outer one takes the entry off; the inner one would only
 * find nothing, under the registry's lock.  So a thread remembers the base
 * its last free took off and the registry's generation right after: while
 * that generation holds, nothing was added since (the address is still the
 * program's until the real free returns), so base is known absent.  The
 * outer free's end puts the entry back if the call failed. */
static __thread struct {
    uintptr_t base;
    uint64_t gen;
} took_off __attribute__((tls_model("initial-exec")));

int dc_mem_free_begin(uintptr_t base, struct dc_alloc *saved)
{
    dc_addr_forget();                   /* what the driver said about addresses may change */
    if (base && base == took_off.base && took_off.gen == __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE))
        return 0;
    if (dc_reg_remove(base, saved) != 0)
        return 0;
    took_off.base = base;
    took_off.gen = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    return 1;
}

void dc_mem_free_end(int had, const struct dc_alloc *saved, int ok)
{
    if (!ok && had)
        (void)dc_reg_add(saved);
}

int dc_mem_known(uintptr_t addr)
{
    struct dc_alloc known;
    return dc_reg_lookup(addr, &known) == 0;
}


/* Stream-ordered allocations: owner is the device the memory lives on (the
 * pointer's ordinal, else the stream's device); access comes from the pool. */
void dc_mem_pool_alloc(CUdeviceptr p, size_t size, CUmemoryPool pool, CUstream s)
{
    uint32_t stack = CAPTURE();
    int dev = dc_ptr_device(p);
    if (dev < 0)
        dev = dc_stream_device(s);
    if (!pool && dev >= 0 && DC_HAS(cuDeviceGetMemPool))
        (void)DC_CALL(cuDeviceGetMemPool, &pool, dev);
    record(p, size, DC_MEM_POOL, dev, 0, (uint64_t)(uintptr_t)pool, stack);
}

/* --- IPC ------------------------------------------------------------------- */

/* The imported range (base and size from the driver) lives on the exporting
 * device; with lazy peer access the importing context's device may access it. */
void dc_mem_ipc_open(CUdeviceptr p, unsigned int flags)
{
    CUdeviceptr base = p;
    size_t size = 0;
    if (DC_CALL(cuMemGetAddressRange_v2, &base, &size, p) != CUDA_SUCCESS || !size) {
        base = p;
        size = 1;
    }
    int owner = dc_ptr_device(p);
    int cur = dc_current_device();
    dc_devmask access = 0;
    if ((flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) && cur >= 0 && cur < DC_MAX_DEVICES)
        access = DC_DEV_BIT(cur);
    record(base, size, DC_MEM_IPC, owner >= 0 ? owner : cur, access, 0, CAPTURE());
}

/* --- pools ------------------------------------------------------------------- */

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

void dc_mem_pool_import(CUdeviceptr p, CUmemoryPool pool)
{
    CUdeviceptr base = p;
    size_t size = 0;
    if (DC_CALL(cuMemGetAddressRange_v2, &base, &size, p) != CUDA_SUCCESS || !size) {
        base = p;
        size = 1;
    }
    record(base, size, DC_MEM_POOL, dc_ptr_device(p), 0, (uint64_t)(uintptr_t)pool, CAPTURE());
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

void dc_mem_fork_prepare(void) { pthread_mutex_lock(&vmm_lock); }
void dc_mem_fork_parent(void) { pthread_mutex_unlock(&vmm_lock); }
void dc_mem_fork_child(void) { dc_mutex_fork_child(&vmm_lock); }

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

static int handle_device(CUmemGenericAllocationHandle handle)
{
    int dev = -1;
    pthread_mutex_lock(&vmm_lock);
    struct handle_rec *h;
    HASH_FIND(hh, handles, &handle, sizeof handle, h);
    if (h)
        dev = h->device;
    pthread_mutex_unlock(&vmm_lock);
    if (dev < 0 && DC_HAS(cuMemGetAllocationPropertiesFromHandle)) {
        /* imported (cuMemImportFromShareableHandle) or created before us */
        CUmemAllocationProp prop;
        memset(&prop, 0, sizeof prop);
        if (DC_CALL(cuMemGetAllocationPropertiesFromHandle, &prop, handle) == CUDA_SUCCESS)
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
    dc_addr_forget();
    while (gone) {
        m = gone;
        gone = m->hh.next;
        (void)dc_reg_remove(m->base, NULL);
        free(m);
    }
}

void dc_mem_vmm_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    for (size_t i = 0; desc && i < count; i++) {
        int dev = location_device(&desc[i].location);
        if (dev >= 0 && dev < DC_MAX_DEVICES)
            dc_reg_set_access((uintptr_t)ptr, size, dev, desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE);
    }
}
