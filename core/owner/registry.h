/* registry: the live allocations devcheck knows of, and who may access them.
 *
 * Contract (all functions are thread-safe; none calls CUDA; none allocates on
 * the lookup path, except a thread's first lookup, which makes its epoch
 * record (core/base/epoch.h); lookups take no lock):
 *  - An allocation is an address range [base, base+size) with a kind, an owner
 *    device (-1 for host memory), a set of devices granted access to it beyond
 *    the owner, and the stack id of the call that allocated it.
 *  - dc_reg_lookup() resolves any interior address in O(1) expected time,
 *    independent of the number of live allocations.
 *  - dc_reg_add() of a range that overlaps live entries first removes those
 *    entries (the program freed them behind our back): a reused address never
 *    inherits a stale owner.
 *  - On allocation failure inside the registry the call returns -1 and the
 *    table is unchanged.
 */
#ifndef DEVCHECK_REGISTRY_H
#define DEVCHECK_REGISTRY_H
#include <stddef.h>
#include <stdint.h>
#include "core/base/base.h"       /* DC_MAX_DEVICES */
#include "report/finding.h"        /* enum dc_mem_kind */

/* The 64-bit finaliser of MurmurHash3: spreads consecutive keys (chunk
 * numbers, addresses) over a table's slots. */
static inline uint64_t dc_mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}
typedef uint64_t dc_devmask;            /* bit d: device d */
#define DC_DEV_BIT(d) ((dc_devmask)1 << (d))

struct dc_alloc {
    uintptr_t base;
    size_t size;
    dc_devmask access;      /* devices granted access (cuMemSetAccess, IPC lazy peer) */
    uint64_t pool;          /* DC_MEM_POOL: the pool handle, access read from the pool */
    uint64_t ctx;           /* the CUcontext it lives and dies with; 0: none (host, VMM) or unknown */
    uint64_t serial;        /* set by dc_reg_add: increases with every add */
    uint32_t alloc_stack;   /* dc_stack id of the allocating call, 0 if none */
    enum dc_mem_kind kind;
    int owner;              /* owning device, -1 for host memory */
    int from_driver;        /* not seen allocated: the driver told it (core/owner/ptrinfo.c) */
};

/* The device whose own memory *a is, as a bit: the owner of device, pool
 * and IPC memory; 0 for other kinds or an owner outside [0, DC_MAX_DEVICES).
 * (A launch on that device has nothing to say about it: the launch check's
 * fast path, core/verdict/check.c.) */
static inline dc_devmask dc_alloc_own_bit(const struct dc_alloc *a)
{
    if ((a->kind == DC_MEM_DEVICE || a->kind == DC_MEM_POOL || a->kind == DC_MEM_IPC) && a->owner >= 0 &&
        a->owner < DC_MAX_DEVICES)
        return (dc_devmask)1 << a->owner;
    return 0;
}

/* 0, or -1 (table unchanged) when size == 0, base + size overflows, or memory
 * runs out.  a->serial is ignored (the registry assigns it). */
int  dc_reg_add(const struct dc_alloc *a);
/* Removes the allocation whose base is exactly `base`; 0 if found (copied to
 * *out when out != NULL), -1 otherwise. */
int  dc_reg_remove(uintptr_t base, struct dc_alloc *out);
/* Finds the allocation containing addr; 0 and a copy in *out, or -1. */
int  dc_reg_lookup(uintptr_t addr, struct dc_alloc *out);
/* The same without the copy: the allocation containing addr, or NULL.  The
 * answer lives in the calling thread's cache: valid until this thread's next
 * lookup, never freed.  Takes no lock and writes no shared memory; a repeat
 * lookup of an address with nothing changed since costs no probe (the
 * inline part below: the thread's cache, valid while the registry's
 * generation is the one it was filled at). */
#define DC_REG_TC_SLOTS 64
/* Two-way: an address is in its slot or the one beside it (index ^ 1), so
 * two words of one launch that hash to one slot do not evict each other at
 * every launch; one array per field (a probe indexes by 8 bytes). */
struct dc_reg_tc {
    uintptr_t addr[DC_REG_TC_SLOTS];
    uint64_t gen[DC_REG_TC_SLOTS];
    dc_devmask own[DC_REG_TC_SLOTS];            /* dc_alloc_own_bit(&a[i]), decided when filled */
    struct dc_alloc a[DC_REG_TC_SLOTS];
};
/* Fibonacci hashing: the top 6 bits of addr * 2^64/phi. */
#define dc_reg_tc_index(addr) ((size_t)(((uint64_t)(addr) * 0x9e3779b97f4a7c15ull) >> 58))
extern __thread struct dc_reg_tc *dc_reg_tcache __attribute__((tls_model("initial-exec"), visibility("hidden")));
extern uint64_t dc_reg_gen __attribute__((visibility("hidden")));
const struct dc_alloc *dc_reg_lookup_slow(uintptr_t addr) __attribute__((visibility("hidden")));
static inline const struct dc_alloc *dc_reg_lookup_ref(uintptr_t addr)
{
    struct dc_reg_tc *c = dc_reg_tcache;
    if (__builtin_expect(c != NULL, 1)) {
        size_t i = dc_reg_tc_index(addr);
        uint64_t g = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
        if (c->addr[i] == addr && c->gen[i] == g && addr)
            return &c->a[i];
        if (c->addr[i ^ 1] == addr && c->gen[i ^ 1] == g && addr)
            return &c->a[i ^ 1];
    }
    return dc_reg_lookup_slow(addr);
}
/* Grants (allowed=1) or revokes access of `device` to every allocation
 * overlapping [base, base+size) (cuMemSetAccess). */
void dc_reg_set_access(uintptr_t base, size_t size, int device, int allowed);
/* Removes every allocation of context `ctx` (non-zero) of the given kinds
 * mask (bit = 1 << kind), when that context is destroyed.  Allocations of
 * other contexts on the same device stay.  Returns count. */
size_t dc_reg_drop_ctx(uint64_t ctx, unsigned kind_mask);
/* Removes every allocation the driver told of (from_driver): memory devcheck
 * never saw allocated may go without a free it sees (a module's variables
 * with the module).  Returns count. */
size_t dc_reg_drop_from_driver(void);
size_t dc_reg_count(void);
/* Bytes the registry holds (its entries' slabs and its table): --stats. */
size_t dc_reg_bytes(void);

/* Peer access: device `from` may access device `to`'s DC_MEM_DEVICE/IPC memory. */
void dc_reg_set_peer(int from, int to, int enabled);
int  dc_reg_peer_enabled(int from, int to);
/* The stack (report/stack.h id) of the call that first enabled peer access
 * from -> to (PyTorch's own, inside a copy between GPUs, most often): a
 * peer_access finding says who did it.  0: none recorded. */
void dc_reg_set_peer_stack(int from, int to, uint32_t stack);
uint32_t dc_reg_peer_stack(int from, int to);
/* Pool access (cuMemPoolSetAccess): devices that may access the pool's memory. */
void dc_reg_pool_set_access(uint64_t pool, int device, int allowed);
dc_devmask dc_reg_pool_access(uint64_t pool);

/* May `device` access allocation *a?  Applies the rules above: owner, managed
 * and host pinned/registered always; device/IPC memory by peer access or an
 * explicit grant; pool memory by the pool's access; VMM only by grant.
 * Precisely (d = device; 0 for d outside [0, DC_MAX_DEVICES)):
 *   managed, pinned, registered:  1
 *   device, ipc:  owner == d || access has d || dc_reg_peer_enabled(d, owner)
 *   pool:         owner == d || access has d || dc_reg_pool_access(pool) has d
 *   vmm:          access has d  (cuMemMap'ed memory needs cuMemSetAccess even
 *                 on the device that backs it)
 *   pageable:     0  (the launch check decides host memory by option) */
int dc_reg_may_access(const struct dc_alloc *a, int device);

/* Shape of the table, for tests of the key-scheme invariant (walks every
 * bucket: O(n), never on a hot path). */
struct dc_reg_stats {
    size_t live;            /* live allocations */
    size_t buckets;         /* (level, chunk) buckets in use */
    size_t max_bucket;      /* most allocations in one bucket: <= 18 by design */
    unsigned levels_used;   /* bit L: level L holds allocations */
};
void dc_reg_stats(struct dc_reg_stats *s);

/* Forget everything (tests; the child after fork keeps the table). */
void dc_reg_reset(void);
/* fork(): core/lifecycle.c registers these with pthread_atfork (prepare takes the
 * writers' lock, parent/child release it) so a child never inherits a held
 * lock. */
void dc_reg_fork_prepare(void);
void dc_reg_fork_parent(void);
void dc_reg_fork_child(void);
#endif
