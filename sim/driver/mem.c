/* Simulated device memory: arenas, the allocation table, every allocation
 * kind, copies and sets, pools, VMM, IPC, pointer attributes and the access
 * rules used by the launch fault check.
 *
 * Address space: one arena per device, one for pinned host memory and one
 * for managed memory.  Each arena is a sparse memfd mapped once with
 * MAP_SHARED|MAP_NORESERVE, so every allocation has a distinct address that
 * the host (and host twins) can dereference, no mmap is made per allocation,
 * and an IPC handle can map the same pages a second time.  VMM handles are
 * memfds of their own, mapped with MAP_FIXED into reserved ranges.
 *
 * The allocation table is a tree of non-overlapping [base, base+size)
 * intervals; a lookup of any interior address finds its allocation. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)
#define LOCKED(expr) __extension__({ sim_lock(); CUresult r__ = (expr); sim_unlock(); r__; })

/* Why a sharing call failed: set with the lock held, said (sim_log) by the
 * entry point once the lock is released. */
static __thread char t_why[320];
#define WHY(...) snprintf(t_why, sizeof t_why, __VA_ARGS__)
static CUresult said(CUresult r)
{
    if (t_why[0] && r != CUDA_SUCCESS)
        sim_log(CU_LOG_LEVEL_ERROR, "%s", t_why);
    t_why[0] = 0;
    return r;
}
/* pool_import: a descriptor that is none of this process's pools */
#define FOREIGN_HANDLE CUDA_ERROR_NOT_FOUND

#define SMALL_ALIGN 256u
#define SMALL_MAX   (64u << 10)
#define NBINS       (SMALL_MAX / SMALL_ALIGN)
#define LARGE_ALIGN (64u << 10)
#define VMM_GRAN    ((size_t)2 << 20)

enum kind { K_DEVICE = 1, K_PITCH, K_MANAGED, K_HOST, K_REGISTERED, K_POOL, K_VMM, K_IPC, K_POOL_IMPORT, K_GRAPH,
            K_GLOBAL /* a module's __device__ variable (globals.c) */ };

struct sizevec { size_t *v; size_t n, cap; };
struct blk { size_t off, size; };

struct arena {
    uintptr_t base;
    size_t vsize;
    int fd;
    size_t top, used, cap;
    struct sizevec bins[NBINS];
    struct blk *large;
    size_t nlarge, caplarge;
};

#define A_HOST    SIM_MAX_DEVICES
#define A_MANAGED (SIM_MAX_DEVICES + 1)
static struct arena g_ar[SIM_MAX_DEVICES + 2];

struct sim_mempool {
    struct sim_obj o;
    int dev;
    int is_default;
    unsigned char access[SIM_MAX_DEVICES];   /* CUmemAccess_flags per device */
    CUmemPoolProps props;
    cuuint64_t threshold;
    int reuse[3];
    cuuint64_t used, used_high;
    int fd;                        /* shareable handle (memfd), -1 until exported */
    struct sim_mempool *origin;    /* imported pools: the exporting pool */
    unsigned long long id;         /* names the pool in export data */
    struct sim_pool_origin from;   /* imported from another process (from.pid != 0) */
};

struct sim_memhandle {
    struct sim_obj o;
    int dev;
    size_t size;
    int fd;
    int released;
    int imported;       /* from cuMemImportFromShareableHandle: no new memory */
    int shared;         /* exported or imported: another process may write it */
    int nmaps;
    CUmemAllocationProp prop;
    unsigned long long id;
};

struct vmm_map { struct sim_memhandle *h; size_t off; unsigned char access[SIM_MAX_DEVICES]; };
/* map/maplen: the second mapping; foff: its offset in arena ai's memfd
 * (ai -1: another process's memory, whose file is not kept) */
struct ipc_map { struct sim_ctx *src_ctx; int lazy; void *map; size_t maplen; int ai; off_t foff; };
/* K_POOL_IMPORT: a pool allocation mapped again through cuMemPoolImportPointer */
struct pool_import { struct sim_mempool *pool; void *map; size_t maplen; int ai; off_t foff; };
struct reservation { uintptr_t base; size_t size; };

struct sim_alloc {
    uintptr_t base;
    size_t size;        /* requested */
    size_t rsize;       /* reserved in the arena / mapped */
    unsigned long long id;
    struct sim_ctx *ctx;
    void *ext;          /* pool, vmm_map or ipc_map */
    signed char kind, dev;
    unsigned flags;
    /* what the simulated GPUs wrote (device kinds; see "written" below) */
    unsigned char wall;         /* every granule */
    uint64_t *wbits;            /* one bit per granule, or NULL: none yet */
};

static void *g_tree;
/* live VMM handles, for cuMemImportFromShareableHandle */
static struct sim_memhandle **g_handles;
static size_t g_nhandles, g_caphandles;
static size_t g_nallocs;
static unsigned long long g_next_buf = 1;
static struct reservation *g_res;
static size_t g_nres, g_capres;
static size_t g_page;

static int iv_cmp(const void *x, const void *y)
{
    const struct sim_alloc *a = x, *b = y;
    if (a->base + a->size <= b->base)
        return -1;
    if (b->base + b->size <= a->base)
        return 1;
    return 0;
}

static struct sim_alloc *find(uintptr_t p)
{
    struct sim_alloc key = { .base = p, .size = 1 };
    void **n = tfind(&key, &g_tree, iv_cmp);
    return n ? *n : NULL;
}

static int table_add(struct sim_alloc *a)
{
    void **n = tsearch(a, &g_tree, iv_cmp);
    if (!n)
        return -1;
    if (*n != a)
        return 1;    /* overlaps an existing entry */
    g_nallocs++;
    return 0;
}

static void table_del(struct sim_alloc *a)
{
    if (tdelete(a, &g_tree, iv_cmp))
        g_nallocs--;
}

static int handles_add(struct sim_memhandle *h)
{
    if (g_nhandles == g_caphandles) {
        size_t nc = g_caphandles ? g_caphandles * 2 : 16;
        struct sim_memhandle **nh = realloc(g_handles, nc * sizeof *nh);
        if (!nh)
            return -1;
        g_handles = nh;
        g_caphandles = nc;
    }
    g_handles[g_nhandles++] = h;
    return 0;
}

static void handle_free(struct sim_memhandle *h)
{
    for (size_t i = 0; i < g_nhandles; i++)
        if (g_handles[i] == h) {
            g_handles[i] = g_handles[--g_nhandles];
            break;
        }
    close(h->fd);
    sim_obj_del(h);
    free(h);
}

/* ---------------- arenas ---------------- */
static int arena_init(struct arena *ar, size_t vsize, size_t cap, const char *name, int quiet)
{
    ar->fd = memfd_create(name, MFD_CLOEXEC);
    if (ar->fd < 0 || ftruncate(ar->fd, (off_t)vsize) != 0) {
        fprintf(stderr, "simcuda: memfd for %s: %s\n", name, strerror(errno));
        if (ar->fd >= 0)
            close(ar->fd);
        ar->fd = -1;
        return -1;
    }
    void *p = mmap(NULL, vsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, ar->fd, 0);
    if (p == MAP_FAILED) {
        if (!quiet)
            fprintf(stderr, "simcuda: mapping %s (%zu MiB): %s\n", name, vsize >> 20, strerror(errno));
        close(ar->fd);
        ar->fd = -1;
        return -1;
    }
    /* like CUDA's pinned and device mappings: not inherited by fork() */
    madvise(p, vsize, MADV_DONTFORK);
    ar->base = (uintptr_t)p;
    ar->vsize = vsize;
    ar->cap = cap && cap < vsize ? cap : vsize;     /* 0: host memory, bounded by the arena only */
    ar->top = SMALL_ALIGN;   /* never hand out the arena's first byte */
    return 0;
}

/* Undoes a successful arena_init (a failed one cleans up after itself). */
static void arena_drop(struct arena *ar)
{
    if (!ar->base)
        return;
    munmap((void *)ar->base, ar->vsize);
    close(ar->fd);
    memset(ar, 0, sizeof *ar);
}

static int vec_push(struct sizevec *v, size_t x)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 64;
        size_t *nv = realloc(v->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        v->v = nv;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return 0;
}

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static size_t arena_rsize(size_t size)
{
    if (size == 0)
        size = 1;
    return size <= SMALL_MAX ? round_up(size, SMALL_ALIGN) : round_up(size, LARGE_ALIGN);
}

/* Returns the offset of a block of rsize bytes, or 0 when out of memory. */
static size_t arena_alloc(struct arena *ar, size_t rsize)
{
    if (ar->used + rsize > ar->cap || rsize > ar->cap)
        return 0;
    size_t off = 0;
    if (rsize <= SMALL_MAX) {
        struct sizevec *b = &ar->bins[rsize / SMALL_ALIGN - 1];
        if (b->n)
            off = b->v[--b->n];
    } else {
        for (size_t i = 0; i < ar->nlarge; i++)
            if (ar->large[i].size >= rsize) {
                off = ar->large[i].off;
                ar->large[i].off += rsize;
                ar->large[i].size -= rsize;
                if (ar->large[i].size == 0) {
                    memmove(&ar->large[i], &ar->large[i + 1], (ar->nlarge - i - 1) * sizeof ar->large[0]);
                    ar->nlarge--;
                }
                break;
            }
    }
    if (!off) {
        size_t o = rsize > SMALL_MAX ? round_up(ar->top, LARGE_ALIGN) : ar->top;
        if (o + rsize > ar->vsize)
            return 0;
        if (o != ar->top && o - ar->top >= SMALL_ALIGN) {
            /* keep the alignment gap usable for small blocks */
            for (size_t g = ar->top; g < o; g += SMALL_ALIGN)
                vec_push(&ar->bins[0], g);
        }
        off = o;
        ar->top = o + rsize;
    }
    ar->used += rsize;
    return off;
}

static void arena_free(struct arena *ar, size_t off, size_t rsize)
{
    ar->used -= rsize;
    if (rsize <= SMALL_MAX) {
        if (vec_push(&ar->bins[rsize / SMALL_ALIGN - 1], off) != 0)
            return;  /* leak the address range rather than fail */
        return;
    }
    /* give the pages back */
    fallocate(ar->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)rsize);
    if (off + rsize == ar->top) {
        ar->top = off;
        /* absorb a free block now ending at top */
        while (ar->nlarge && ar->large[ar->nlarge - 1].off + ar->large[ar->nlarge - 1].size == ar->top) {
            ar->top = ar->large[ar->nlarge - 1].off;
            ar->nlarge--;
        }
        return;
    }
    size_t i = 0;
    while (i < ar->nlarge && ar->large[i].off < off)
        i++;
    if (i > 0 && ar->large[i - 1].off + ar->large[i - 1].size == off) {
        ar->large[i - 1].size += rsize;
        if (i < ar->nlarge && off + rsize == ar->large[i].off) {
            ar->large[i - 1].size += ar->large[i].size;
            memmove(&ar->large[i], &ar->large[i + 1], (ar->nlarge - i - 1) * sizeof ar->large[0]);
            ar->nlarge--;
        }
        return;
    }
    if (i < ar->nlarge && off + rsize == ar->large[i].off) {
        ar->large[i].off = off;
        ar->large[i].size += rsize;
        return;
    }
    if (ar->nlarge == ar->caplarge) {
        size_t nc = ar->caplarge ? ar->caplarge * 2 : 64;
        struct blk *nb = realloc(ar->large, nc * sizeof *nb);
        if (!nb)
            return;
        ar->large = nb;
        ar->caplarge = nc;
    }
    memmove(&ar->large[i + 1], &ar->large[i], (ar->nlarge - i) * sizeof ar->large[0]);
    ar->large[i] = (struct blk){ off, rsize };
    ar->nlarge++;
}

/* One arena per device plus host and managed ones, each `span` bytes of
 * address space (64 GiB, or twice a larger capacity).  Under a tight
 * address-space limit (ulimit -v, overcommit policy) all arenas shrink
 * together; a device whose arena ends below its capacity reports less. */
int sim_mem_init(void)
{
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    size_t cap = sim_g.dev[0].capacity;
    size_t span = cap * 2 > ((size_t)64 << 30) ? round_up(cap * 2, (size_t)1 << 30) : (size_t)64 << 30;
    for (;; span /= 2) {
        int quiet = span / 2 >= ((size_t)256 << 20);   /* say why only on the last try */
        int ok = 1, i;
        for (i = 0; i < sim_g.ndev && ok; i++) {
            char name[32];
            snprintf(name, sizeof name, "simcuda-dev%d", i);
            ok = arena_init(&g_ar[i], span, sim_g.dev[i].capacity, name, quiet) == 0;
        }
        ok = ok && arena_init(&g_ar[A_HOST], span, 0, "simcuda-host", quiet) == 0;
        ok = ok && arena_init(&g_ar[A_MANAGED], span, 0, "simcuda-managed", quiet) == 0;
        if (ok)
            break;
        for (i = 0; i < SIM_MAX_DEVICES + 2; i++)
            arena_drop(&g_ar[i]);
        if (quiet == 0)
            return -1;
    }
    for (int i = 0; i < sim_g.ndev; i++)
        sim_g.dev[i].capacity = g_ar[i].cap;
    return 0;
}

static int arena_of(uintptr_t p)
{
    for (int i = 0; i < SIM_MAX_DEVICES + 2; i++)
        if (g_ar[i].base && p >= g_ar[i].base && p < g_ar[i].base + g_ar[i].vsize)
            return i;
    return -1;
}

static int in_reservation(uintptr_t p)
{
    for (size_t i = 0; i < g_nres; i++)
        if (p >= g_res[i].base && p < g_res[i].base + g_res[i].size)
            return (int)i;
    return -1;
}

static int host_mapped(uintptr_t p)
{
    unsigned char v;
    uintptr_t page = p & ~(uintptr_t)(g_page - 1);
    return mincore((void *)page, 1, &v) == 0;
}

/* Every page of [p, p+n) is mapped (n > 0): one mincore() call, so a bad
 * host pointer gives CUDA_ERROR_INVALID_VALUE instead of a crash. */
static int host_range_mapped(uintptr_t p, size_t n)
{
    uintptr_t first = p & ~(uintptr_t)(g_page - 1);
    size_t npages = (p + n - first + g_page - 1) / g_page;
    unsigned char small[256];
    unsigned char *vec = npages <= sizeof small ? small : malloc(npages);
    if (!vec)
        return host_mapped(p) && host_mapped(p + n - 1);
    int ok = mincore((void *)first, npages * g_page, vec) == 0;
    if (vec != small)
        free(vec);
    return ok;
}

int sim_host_range_mapped(uintptr_t p, size_t n) { return n == 0 || host_range_mapped(p, n); }

/* ---------------- pools (default pool per device) ---------------- */
/* live pools, for cuMemPoolImportFromShareableHandle */
static struct sim_mempool **g_pools;
static size_t g_npools, g_cappools;

static struct sim_mempool *pool_new(int dev, const CUmemPoolProps *props)
{
    struct sim_mempool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (g_npools == g_cappools) {
        size_t nc = g_cappools ? g_cappools * 2 : 32;
        struct sim_mempool **np = realloc(g_pools, nc * sizeof *np);
        if (!np) {
            free(p);
            return NULL;
        }
        g_pools = np;
        g_cappools = nc;
    }
    g_pools[g_npools++] = p;
    p->fd = -1;
    p->id = g_next_buf++;
    p->dev = dev;
    p->access[dev] = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (props)
        p->props = *props;
    else {
        p->props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        p->props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        p->props.location.id = dev;
    }
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    sim_obj_add(p, T_POOL);
    return p;
}

void sim_mem_dev_init(int dev)
{
    struct sim_mempool *p = pool_new(dev, NULL);
    if (p)
        p->is_default = 1;
    sim_g.dev[dev].default_pool = sim_g.dev[dev].current_pool = p;
}

/* ---------------- allocation / free core ---------------- */
static struct sim_alloc *alloc_in(int arena, size_t size, enum kind kind, int dev, struct sim_ctx *ctx, CUresult *err)
{
    struct arena *ar = &g_ar[arena];
    size_t rs = arena_rsize(size);
    size_t off = arena_alloc(ar, rs);
    if (!off) {
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    struct sim_alloc *a = calloc(1, sizeof *a);
    if (!a) {
        arena_free(ar, off, rs);
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    a->base = ar->base + off;
    a->size = size ? size : 1;
    a->rsize = rs;
    a->kind = (signed char)kind;
    a->dev = (signed char)dev;
    a->ctx = ctx;
    a->id = g_next_buf++;
    if (table_add(a) != 0) {
        arena_free(ar, off, rs);
        free(a);
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    return a;
}

static void alloc_release(struct sim_alloc *a)
{
    table_del(a);
    free(a->wbits);
    switch (a->kind) {
    case K_DEVICE: case K_PITCH: case K_POOL: case K_HOST: case K_MANAGED: case K_GRAPH: case K_GLOBAL: {
        int ai = arena_of(a->base);
        if (ai >= 0)
            arena_free(&g_ar[ai], a->base - g_ar[ai].base, a->rsize);
        if (a->kind == K_GRAPH)
            free(a->ext);
        if (a->kind == K_POOL && a->ext) {
            struct sim_mempool *p = a->ext;
            p->used -= a->rsize;
        }
        break;
    }
    case K_IPC: {
        struct ipc_map *m = a->ext;
        sim_guard_forget((uintptr_t)m->map, m->maplen);
        munmap(m->map, m->maplen);
        free(m);
        break;
    }
    case K_POOL_IMPORT: {
        struct pool_import *m = a->ext;
        sim_guard_forget((uintptr_t)m->map, m->maplen);
        munmap(m->map, m->maplen);
        free(m);
        break;
    }
    case K_VMM: {
        struct vmm_map *m = a->ext;
        sim_guard_forget(a->base, a->rsize);
        mmap((void *)a->base, a->rsize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        if (m) {
            struct sim_memhandle *h = m->h;
            if (--h->nmaps == 0 && h->released)
                handle_free(h);
            free(m);
        }
        break;
    }
    default:
        break;
    }
    free(a);
}

static struct sim_alloc **g_coll;
static size_t g_ncoll, g_capcoll;
static struct sim_ctx *g_gone_ctx;
static struct sim_mempool *g_gone_pool;
static void collect(const void *nodep, VISIT which, int depth)
{
    (void)depth;
    if (which != postorder && which != leaf)
        return;
    struct sim_alloc *a = *(struct sim_alloc *const *)nodep;
    int hit = (g_gone_ctx && a->ctx == g_gone_ctx && a->kind != K_VMM) ||
              (g_gone_pool && a->kind == K_POOL && a->ext == g_gone_pool) ||
              (g_gone_pool && a->kind == K_POOL_IMPORT && ((struct pool_import *)a->ext)->pool == g_gone_pool);
    if (hit && g_ncoll < g_capcoll)
        g_coll[g_ncoll++] = a;
}

static void release_matching(struct sim_ctx *ctx, struct sim_mempool *pool)
{
    g_capcoll = g_nallocs + 1;
    g_coll = malloc(g_capcoll * sizeof *g_coll);
    if (!g_coll)
        return;
    g_ncoll = 0;
    g_gone_ctx = ctx;
    g_gone_pool = pool;
    twalk(g_tree, collect);
    for (size_t i = 0; i < g_ncoll; i++)
        alloc_release(g_coll[i]);
    free(g_coll);
    g_coll = NULL;
    g_gone_ctx = NULL;
    g_gone_pool = NULL;
}

void sim_mem_ctx_gone(struct sim_ctx *ctx) { release_matching(ctx, NULL); }

/* ---------------- access rules ---------------- */
/* May device dev, running in context ctx, access allocation a? */
static int alloc_accessible(const struct sim_alloc *a, int dev, const struct sim_ctx *ctx)
{
    switch (a->kind) {
    case K_DEVICE: case K_PITCH: case K_GLOBAL:
        return a->dev == dev || sim_ctx_peer_enabled(ctx, a->ctx);
    case K_IPC: {
        struct ipc_map *m = a->ext;
        return a->dev == dev || m->lazy || sim_ctx_peer_enabled(ctx, m->src_ctx);
    }
    case K_POOL:
        return ((struct sim_mempool *)a->ext)->access[dev] != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    case K_POOL_IMPORT:
        return ((struct pool_import *)a->ext)->pool->access[dev] != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    case K_VMM:
        return ((struct vmm_map *)a->ext)->access[dev] != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    case K_GRAPH:       /* the owner, and the devices of the node's accessDescs */
        return a->dev == dev || ((unsigned char *)a->ext)[dev] != CU_MEM_ACCESS_FLAGS_PROT_NONE;
    case K_MANAGED: case K_HOST: case K_REGISTERED:
        return 1;
    default:
        return 0;
    }
}

/* The end of the largest user space of the architecture: a word at or above
 * it is no address (data).  x86-64: 2^56 with 5-level paging (2^47 with
 * 4-level); aarch64: 2^52 with 52-bit VA, 2^48 by default, where libraries,
 * mmap() memory and stacks sit just below 2^48, above x86-64's 2^47. */
#if defined(__aarch64__)
#define USER_VA_END ((uintptr_t)1 << 52)
#else
#define USER_VA_END ((uintptr_t)1 << 56)
#endif

int sim_mem_accessible(uintptr_t w, int dev, const struct sim_ctx *ctx)
{
    if (w < 65536 || w >= USER_VA_END)
        return 1;
    struct sim_alloc *a = find(w);
    if (a)
        return alloc_accessible(a, dev, ctx);
    if (arena_of(w) >= 0 || in_reservation(w) >= 0)
        return 0;           /* freed or never-allocated device address */
    if (!host_mapped(w))
        return 1;           /* not an address: just data */
    return sim_g.hmm;       /* pageable host memory */
}

/* ---------------- what the simulated GPUs wrote ----------------
 * The sim computes copies, memsets and kernels with a host twin (the sim's
 * NVIDIA libraries launch such kernels); every other kernel does nothing,
 * so device memory only such a kernel wrote holds what was there before.
 * The first copy of the process that reads device memory nothing wrote
 * into host memory says so in one line (sim/driver/README.md, "Memory
 * nothing wrote").  Device allocations (cuMemAlloc, pitch, pool, VMM and
 * graph memory; the others count as written: module globals are
 * initialised, IPC memory another process writes, host and managed memory
 * the host writes) keep one bit per granule of WGRAN bytes, made on the
 * first partial write: PyTorch's caching allocator rounds every block to
 * 512 bytes, so one tensor's write never counts for its neighbour's.  A
 * kernel with a host twin counts as writing every allocation a word of its
 * parameters points into (what the twin wrote is not known).  Lock held. */
#define WGRAN 512u

static int tracked(const struct sim_alloc *a)
{
    if (a->kind == K_VMM)
        return !((struct vmm_map *)a->ext)->h->shared;
    return a->kind == K_DEVICE || a->kind == K_PITCH || a->kind == K_POOL || a->kind == K_GRAPH;
}

static void wrote_all(struct sim_alloc *a)
{
    a->wall = 1;
    free(a->wbits);
    a->wbits = NULL;
}

/* [p, end) lies in a */
static void wrote(struct sim_alloc *a, uintptr_t p, uintptr_t end)
{
    if (!tracked(a) || a->wall || end <= p)
        return;
    size_t ng = (a->size + WGRAN - 1) / WGRAN;
    size_t g = (p - a->base) / WGRAN, g1 = (end - 1 - a->base) / WGRAN + 1;
    if (g == 0 && g1 >= ng) {
        wrote_all(a);
        return;
    }
    if (!a->wbits && !(a->wbits = calloc((ng + 63) / 64, sizeof *a->wbits))) {
        wrote_all(a);           /* never a false line */
        return;
    }
    for (; g < g1 && g % 64; g++)
        a->wbits[g / 64] |= 1ull << (g % 64);
    for (; g + 64 <= g1; g += 64)
        a->wbits[g / 64] = ~0ull;
    for (; g < g1; g++)
        a->wbits[g / 64] |= 1ull << (g % 64);
}

/* Some granule of [p, end), which lies in a, was never written. */
static int unwritten_in(struct sim_alloc *a, uintptr_t p, uintptr_t end)
{
    if (!tracked(a) || a->wall || end <= p)
        return 0;
    if (!a->wbits)
        return 1;
    for (size_t g = (p - a->base) / WGRAN, g1 = (end - 1 - a->base) / WGRAN + 1; g < g1; g++)
        if (!(a->wbits[g / 64] >> (g % 64) & 1))
            return 1;
    return 0;
}

/* Calls fn for each allocation piece of [p, p + n) (adjacent VMM mappings);
 * stops at the first nonzero answer, which it returns. */
static int each_piece(uintptr_t p, size_t n, int (*fn)(struct sim_alloc *, uintptr_t, uintptr_t))
{
    for (uintptr_t end = p + n; p < end;) {
        struct sim_alloc *a = find(p);
        if (!a)
            return 0;
        uintptr_t e = a->base + a->size < end ? a->base + a->size : end;
        int r = fn(a, p, e);
        if (r)
            return r;
        p = e;
    }
    return 0;
}
static int wrote_piece(struct sim_alloc *a, uintptr_t p, uintptr_t e) { wrote(a, p, e); return 0; }

/* A copy from [src, src + sn) to [dst, dst + dn) (lock held, both ranges
 * valid): marks what it writes; 1 when it is the process's first read-back
 * of memory nothing wrote. */
static int g_told_unwritten;
static int copy_writes(uintptr_t dst, size_t dn, uintptr_t src, size_t sn)
{
    if (dn == 0 || sn == 0)
        return 0;
    int unwritten = each_piece(src, sn, unwritten_in);
    struct sim_alloc *d = find(dst);
    if (d && d->kind != K_HOST && d->kind != K_REGISTERED && d->kind != K_MANAGED) {
        if (!unwritten)         /* device to device carries unwritten bytes on */
            each_piece(dst, dn, wrote_piece);
        return 0;
    }
    if (!unwritten || g_told_unwritten)
        return 0;
    g_told_unwritten = 1;
    return 1;
}

/* The line, once (no lock held). */
static void say_unwritten(uintptr_t src, size_t n)
{
    char line[512];
    int len = snprintf(line, sizeof line,
                       "simcuda: reading device memory that no computed kernel or copy wrote (0x%llx, %zu bytes; "
                       "the simulated GPUs compute only copies, memsets, the sim's NVIDIA libraries and kernels with a host twin): values are "
                       "not what a GPU would give\n",
                       (unsigned long long)src, n);
    if (len > 0)
        (void)!write(2, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

void sim_mem_twin_writes(const struct sim_kernel_info *ki, void *const *args)
{
    for (unsigned i = 0; i < ki->nparams; i++)
        for (size_t o = 0; o + 8 <= ki->params[i].size; o += 8) {
            uint64_t w;
            memcpy(&w, (const unsigned char *)args[i] + o, 8);
            struct sim_alloc *a = w >= 65536 ? find((uintptr_t)w) : NULL;
            if (a && tracked(a))
                wrote_all(a);
        }
}

/* ---------------- range validation for copies ---------------- */
/* 0 ok (device or host range), else the error to return. */
static CUresult check_range(uintptr_t p, size_t n)
{
    if (n == 0)
        return CUDA_SUCCESS;
    if (p == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find(p);
    if (a) {
        /* a copy may run over adjacent VMM mappings of one reservation */
        uintptr_t end = p + n;
        while (a && a->base + a->size < end && a->kind == K_VMM) {
            a = find(a->base + a->size);
            if (a && a->kind != K_VMM)
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (!a || a->base + a->size < end)
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    if (arena_of(p) >= 0 || in_reservation(p) >= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (p + n < p || !host_range_mapped(p, n))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* ---------------- allocation API ---------------- */
static CUresult mem_alloc(CUdeviceptr *dptr, size_t size, enum kind kind)
{
    if (!dptr || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS)
        r = sim_capture_guard();
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_alloc *a = alloc_in(c->dev, size, kind, c->dev, c, &r);
    if (!a)
        return r;
    *dptr = a->base;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(mem_alloc(dptr, bytesize, K_DEVICE));
}

CUresult CUDAAPI cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height, unsigned int ElementSizeBytes)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (!pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = round_up(WidthInBytes, 512);
    if (Height > SIZE_MAX / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = LOCKED(mem_alloc(dptr, pitch * Height, K_PITCH));
    if (r == CUDA_SUCCESS)
        *pPitch = pitch;
    return r;
}

static CUresult mem_free(CUdeviceptr p, int want_host)
{
    if (p == 0)
        return CUDA_SUCCESS;
    struct sim_alloc *a = find(p);
    if (!a || a->base != p)
        return CUDA_ERROR_INVALID_VALUE;
    if (want_host ? a->kind != K_HOST : (a->kind != K_DEVICE && a->kind != K_PITCH && a->kind != K_MANAGED &&
                                          a->kind != K_POOL && a->kind != K_POOL_IMPORT && a->kind != K_GRAPH))
        return CUDA_ERROR_INVALID_VALUE;
    if (a->kind == K_GRAPH)
        return CUDA_SUCCESS;    /* graph memory stays the graph's (mem.c, sim_mem_graph_alloc) */
    /* freeing synchronizes, so it reports a pending fault of its context */
    CUresult r = sim_ctx_sync(sim_obj_get(a->ctx, T_CTX) ? a->ctx : NULL);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_CONTEXT)
        return r;
    alloc_release(a);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(mem_free(dptr, 0));
}

static CUresult mem_info(size_t *fr, size_t *tot)
{
    if (!fr || !tot)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    *tot = g_ar[c->dev].cap;
    *fr = g_ar[c->dev].cap - g_ar[c->dev].used;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetInfo_v2(size_t *free_, size_t *total)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(mem_info(free_, total));
}

/* Every allocation the sim made or mapped (cuda.h names cuMemAlloc's and
 * cuMemAllocPitch's; see README "Pointer queries"), in a current context:
 * the real driver answers CUDA_ERROR_INVALID_CONTEXT without one. */
static CUresult addr_range(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p)
{
    if (!sim_cur_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sim_alloc *a = find(p);
    if (!a)
        return CUDA_ERROR_NOT_FOUND;
    if (pbase)
        *pbase = a->base;
    if (psize)
        *psize = a->size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    ENTER(CUDA_ERROR_NOT_FOUND);
    return LOCKED(addr_range(pbase, psize, dptr));
}

static CUresult alloc_managed(CUdeviceptr *dptr, size_t size, unsigned flags)
{
    if (!dptr || size == 0 || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS)
        r = sim_capture_guard();
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_alloc *a = alloc_in(A_MANAGED, size, K_MANAGED, c->dev, c, &r);
    if (!a)
        return r;
    a->flags = flags;
    *dptr = a->base;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(alloc_managed(dptr, bytesize, flags));
}

static CUresult managed_range(CUdeviceptr p, size_t n)
{
    struct sim_alloc *a = find(p);
    if (!a || a->kind != K_MANAGED || p + n > a->base + a->size)
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult advise(CUdeviceptr p, size_t n, CUmem_advise advice, int loc_ok)
{
    if (n == 0 || (int)advice < 1 || (int)advice > 6 || !loc_ok)
        return CUDA_ERROR_INVALID_VALUE;
    return managed_range(p, n);
}
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    int ok = device == CU_DEVICE_CPU || (device >= 0 && device < sim_g.ndev);
    return LOCKED(advise(devPtr, count, advice, ok));
}
CUresult CUDAAPI cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    int ok = location.type == CU_MEM_LOCATION_TYPE_HOST || location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
             location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ||
             (location.type == CU_MEM_LOCATION_TYPE_DEVICE && location.id >= 0 && location.id < sim_g.ndev);
    return LOCKED(advise(devPtr, count, advice, ok));
}

static CUresult prefetch(CUdeviceptr p, size_t n, int loc_ok, CUstream hs)
{
    if (!loc_ok || n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(hs, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    r = sim_ctx_check(c);
    return r != CUDA_SUCCESS ? r : managed_range(p, n);
}
static int dev_loc_ok(CUdevice d) { return d == CU_DEVICE_CPU || (d >= 0 && d < sim_g.ndev); }
static int loc_ok(CUmemLocation l)
{
    return l.type == CU_MEM_LOCATION_TYPE_HOST || l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
           l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT ||
           (l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id >= 0 && l.id < sim_g.ndev);
}
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(prefetch(devPtr, count, dev_loc_ok(dstDevice), hStream)); }
CUresult CUDAAPI cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(prefetch(devPtr, count, dev_loc_ok(dstDevice), hStream)); }
CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(prefetch(devPtr, count, loc_ok(location) && !flags, hStream)); }
CUresult CUDAAPI cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(prefetch(devPtr, count, loc_ok(location) && !flags, hStream)); }

/* ---- pinned and registered host memory ---- */
static CUresult host_alloc(void **pp, size_t size, unsigned flags)
{
    if (!pp || size == 0 || (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r == CUDA_SUCCESS)
        r = sim_capture_guard();
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_alloc *a = alloc_in(A_HOST, size, K_HOST, c->dev, c, &r);
    if (!a)
        return r;
    a->flags = flags;
    *pp = (void *)a->base;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(host_alloc(pp, bytesize, Flags)); }
CUresult CUDAAPI cuMemAllocHost_v2(void **pp, size_t bytesize) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(host_alloc(pp, bytesize, 0)); }
CUresult CUDAAPI cuMemFreeHost(void *p) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(mem_free((uintptr_t)p, 1)); }

static CUresult host_devptr(CUdeviceptr *pd, void *p, unsigned flags)
{
    if (!pd || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_alloc *a = find((uintptr_t)p);
    if (!a || (a->kind != K_HOST && a->kind != K_REGISTERED))
        return CUDA_ERROR_INVALID_VALUE;
    *pd = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(host_devptr(pdptr, p, Flags)); }

CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pFlags)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_alloc *a = find((uintptr_t)p);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    if (a && (a->kind == K_HOST || a->kind == K_REGISTERED)) {
        *pFlags = a->flags;
        r = CUDA_SUCCESS;
    }
    sim_unlock();
    return r;
}

static CUresult host_register(void *p, size_t size, unsigned flags)
{
    if (!p || size == 0 || (flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                                  CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    uintptr_t b = (uintptr_t)p;
    if (arena_of(b) >= 0 || in_reservation(b) >= 0)
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    /* every page must be mapped: one mincore() over the range */
    uintptr_t first = b & ~(uintptr_t)(g_page - 1);
    if (b + size < b)
        return CUDA_ERROR_INVALID_VALUE;
    size_t npages = (b + size - first + g_page - 1) / g_page;
    unsigned char *vec = malloc(npages);
    if (!vec)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int mapped = mincore((void *)first, npages * g_page, vec) == 0;
    free(vec);
    if (!mapped)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = calloc(1, sizeof *a);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->base = b;
    a->size = a->rsize = size;
    a->kind = K_REGISTERED;
    a->dev = (signed char)c->dev;
    a->ctx = c;
    a->flags = flags;
    a->id = g_next_buf++;
    int t = table_add(a);
    if (t != 0) {
        free(a);
        return t > 0 ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED : CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(host_register(p, bytesize, Flags)); }
CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(host_register(p, bytesize, Flags)); }

static CUresult host_unregister(void *p)
{
    struct sim_alloc *a = find((uintptr_t)p);
    if (!a || a->kind != K_REGISTERED || a->base != (uintptr_t)p)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    alloc_release(a);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostUnregister(void *p) { ENTER(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED); return LOCKED(host_unregister(p)); }

/* ---- stream-ordered allocation and pools ---- */
static CUresult pool_alloc(CUdeviceptr *dptr, size_t size, struct sim_mempool *pool, CUstream hs)
{
    if (!dptr || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(hs, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = sim_ctx_check(c)) != CUDA_SUCCESS)
        return r;
    if (!pool)
        pool = sim_g.dev[c->dev].current_pool;
    if (!pool)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (s && sim_stream_capture(s))     /* an allocation node of the capture */
        return sim_capture_mem_alloc(s, pool->dev, size, pool->access, dptr);
    struct sim_alloc *a = alloc_in(pool->dev, size, K_POOL, pool->dev, c, &r);
    if (!a)
        return r;
    a->ext = pool;
    pool->used += a->rsize;
    if (pool->used > pool->used_high)
        pool->used_high = pool->used;
    *dptr = a->base;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(pool_alloc(dptr, bytesize, NULL, hStream)); }
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(pool_alloc(dptr, bytesize, NULL, hStream)); }

static CUresult pool_alloc_from(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream hs)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return pool_alloc(dptr, size, p, hs);
}
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(pool_alloc_from(dptr, bytesize, pool, hStream)); }
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(pool_alloc_from(dptr, bytesize, pool, hStream)); }

static CUresult free_async(CUdeviceptr p, CUstream hs)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = sim_stream_resolve(hs, &c, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = sim_ctx_check(c)) != CUDA_SUCCESS)
        return r;
    struct sim_alloc *a = find(p);
    if (!a || a->base != p || (a->kind != K_POOL && a->kind != K_POOL_IMPORT && a->kind != K_DEVICE && a->kind != K_PITCH &&
                               a->kind != K_GRAPH))
        return CUDA_ERROR_INVALID_VALUE;
    if (s && sim_stream_capture(s))     /* a free node of the capture */
        return sim_capture_mem_free(s, p);
    if (a->kind != K_GRAPH)             /* graph memory stays the graph's */
        alloc_release(a);
    return CUDA_SUCCESS;
}

/* ---- graph memory (graph.c's allocation nodes) ----
 * Allocated when the node is made, at an address fixed for the graph's
 * life (every launch runs with it, so no launch ever allocates), freed with
 * the last graph holding the node; a free outside the graph (cuMemFree,
 * cuMemFreeAsync) succeeds and keeps it. */
CUresult sim_mem_graph_alloc(int dev, size_t size, const unsigned char access[SIM_MAX_DEVICES], CUdeviceptr *out)
{
    unsigned char *acc = malloc(SIM_MAX_DEVICES);
    if (!acc)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(acc, access, SIM_MAX_DEVICES);
    CUresult r;
    struct sim_alloc *a = alloc_in(dev, size, K_GRAPH, dev, &sim_g.dev[dev].primary, &r);
    if (!a) {
        free(acc);
        return r;
    }
    a->ext = acc;
    *out = a->base;
    return CUDA_SUCCESS;
}

void sim_mem_graph_free(CUdeviceptr p)
{
    struct sim_alloc *a = find(p);
    if (a && a->base == p && a->kind == K_GRAPH)
        alloc_release(a);
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(free_async(dptr, hStream)); }
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(free_async(dptr, hStream)); }

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (!pool || !poolProps || poolProps->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (poolProps->location.id < 0 || poolProps->location.id >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    struct sim_mempool *p = pool_new(poolProps->location.id, poolProps);
    sim_unlock();
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

static CUresult pool_destroy(CUmemoryPool pool)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!p || p->is_default)
        return CUDA_ERROR_INVALID_VALUE;
    release_matching(NULL, p);
    if (sim_g.dev[p->dev].current_pool == p)
        sim_g.dev[p->dev].current_pool = sim_g.dev[p->dev].default_pool;
    for (size_t i = 0; i < g_npools; i++) {
        if (g_pools[i] == p)
            g_pools[i--] = g_pools[--g_npools];
        else if (g_pools[i]->origin == p)
            g_pools[i]->origin = NULL;
    }
    if (p->fd >= 0)
        close(p->fd);
    sim_obj_del(p);
    free(p);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(pool_destroy(pool)); }

static CUresult pool_set_access(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!p || (!map && count))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++) {
        if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return CUDA_ERROR_INVALID_VALUE;
        int d = map[i].location.id;
        if (d < 0 || d >= sim_g.ndev)
            return CUDA_ERROR_INVALID_DEVICE;
        if (map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
        if (d == p->dev && map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_DEVICE;
        if (d != p->dev && map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && !sim_g.peer_ok[d][p->dev])
            return CUDA_ERROR_INVALID_DEVICE;
    }
    for (size_t i = 0; i < count; i++)
        p->access[map[i].location.id] = (unsigned char)map[i].flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(pool_set_access(pool, map, count)); }

static CUresult pool_get_access(CUmemAccess_flags *flags, CUmemoryPool pool, CUmemLocation *loc)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!p || !flags || !loc || loc->type != CU_MEM_LOCATION_TYPE_DEVICE || loc->id < 0 || loc->id >= sim_g.ndev)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = (CUmemAccess_flags)p->access[loc->id];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(pool_get_access(flags, memPool, location)); }

static CUresult pool_attr(CUmemoryPool pool, CUmemPool_attribute attr, void *value, int set)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!p || !value)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: {
        int i = attr == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ? 0 :
                attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ? 1 : 2;
        if (set)
            p->reuse[i] = *(int *)value;
        else
            *(int *)value = p->reuse[i];
        return CUDA_SUCCESS;
    }
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        if (set)
            p->threshold = *(cuuint64_t *)value;
        else
            *(cuuint64_t *)value = p->threshold;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
        if (set)
            return CUDA_ERROR_INVALID_VALUE;
        *(cuuint64_t *)value = p->used;
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        if (set) {
            if (*(cuuint64_t *)value != 0)
                return CUDA_ERROR_INVALID_VALUE;
            p->used_high = p->used;
        } else
            *(cuuint64_t *)value = p->used_high;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(pool_attr(pool, attr, value, 1)); }
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(pool_attr(pool, attr, value, 0)); }

/* ---- sharing pools and their allocations (in one process) ---- */
static CUresult pool_export(void *out, CUmemoryPool pool, CUmemAllocationHandleType type, unsigned long long flags)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!out || !p || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(p->props.handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_INVALID_VALUE;
    /* the name tells an importing process where the pool's memory is */
    char name[96];
    snprintf(name, sizeof name, "simcuda-pool:%d:%d:%d:%llu", (int)getpid(), p->dev, g_ar[p->dev].fd, p->id);
    if (p->fd < 0 && (p->fd = memfd_create(name, MFD_CLOEXEC)) < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *(int *)out = fd;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(pool_export(handle_out, pool, handleType, flags));
}

static CUresult pool_import(CUmemoryPool *out, void *handle, CUmemAllocationHandleType type, unsigned long long flags)
{
    if (!out || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = (int)(intptr_t)handle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        WHY("cuMemPoolImportFromShareableHandle: %d is not an open file descriptor: CUDA_ERROR_INVALID_VALUE", fd);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct sim_mempool *src = NULL;
    for (size_t i = 0; i < g_npools && !src; i++) {
        struct stat ps;
        if (g_pools[i]->fd >= 0 && fstat(g_pools[i]->fd, &ps) == 0 && ps.st_ino == st.st_ino && ps.st_dev == st.st_dev)
            src = g_pools[i];
    }
    if (!src)
        return FOREIGN_HANDLE;
    /* an importing process sets its own access: only the owner device has it */
    struct sim_mempool *p = pool_new(src->dev, &src->props);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->origin = src;
    *out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUresult r = said(LOCKED(pool_import(pool_out, handle, handleType, flags)));
    return r == FOREIGN_HANDLE ? sim_ipc_pool_import(pool_out, (int)(intptr_t)handle) : r;
}

CUresult sim_mem_pool_foreign(const struct sim_pool_origin *o, CUmemoryPool *out)
{
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = o->dev;
    struct sim_mempool *p = pool_new(o->dev, &props);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->from = *o;
    *out = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

struct sim_mempool *sim_mem_pool_origin(CUmemoryPool h, struct sim_pool_origin *o)
{
    struct sim_mempool *p = sim_obj_get(h, T_POOL);
    memset(o, 0, sizeof *o);
    if (p)
        *o = p->from;
    return p;
}

static CUresult pool_export_ptr(CUmemPoolPtrExportData *out, CUdeviceptr ptr)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find(ptr);
    if (!a || a->kind != K_POOL || a->base != ptr)
        return CUDA_ERROR_INVALID_VALUE;
    int ai = arena_of(a->base);
    struct sim_ipc_ptr pl = { "SIMPOOL", (int)getpid(), ai >= 0 ? g_ar[ai].fd : -1, ((struct sim_mempool *)a->ext)->id,
                              a->id, a->base, a->size, a->rsize, ai >= 0 ? a->base - g_ar[ai].base : 0 };
    _Static_assert(sizeof pl <= sizeof out->reserved, "export data too small");
    memset(out, 0, sizeof *out);
    memcpy(out->reserved, &pl, sizeof pl);
    wrote_all(a);               /* the importer may write it */
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(pool_export_ptr(shareData_out, ptr));
}

static CUresult pool_import_ptr(CUdeviceptr *out, CUmemoryPool pool, CUmemPoolPtrExportData *data)
{
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    if (!out || !p || !data)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ipc_ptr pl;
    memcpy(&pl, data->reserved, sizeof pl);
    if (memcmp(pl.magic, "SIMPOOL", 8)) {
        WHY("cuMemPoolImportPointer: not export data from cuMemPoolExportPointer (CUDA_ERROR_INVALID_VALUE)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct sim_alloc *src = find(pl.base);
    if (!src || src->kind != K_POOL || src->id != pl.id || src->base != pl.base) {
        WHY("cuMemPoolImportPointer: the exported allocation was freed (CUDA_ERROR_INVALID_VALUE)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct sim_mempool *sp = src->ext;
    if (p != sp && p->origin != sp) {
        WHY("cuMemPoolImportPointer: the pool was not imported from the exporting pool (CUDA_ERROR_INVALID_VALUE)");
        return CUDA_ERROR_INVALID_VALUE;    /* not from this (imported) pool */
    }
    int ai = arena_of(src->base);
    if (ai < 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = calloc(1, sizeof *a);
    struct pool_import *m = calloc(1, sizeof *m);
    if (!a || !m) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    size_t off = src->base - g_ar[ai].base, delta = off % g_page;
    size_t len = round_up(delta + src->rsize, g_page);
    void *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, g_ar[ai].fd, (off_t)(off - delta));
    if (v == MAP_FAILED) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    madvise(v, len, MADV_DONTFORK);
    m->pool = p;
    m->map = v;
    m->maplen = len;
    m->ai = ai;
    m->foff = (off_t)(off - delta);
    a->base = (uintptr_t)v + delta;
    a->size = src->size;
    a->rsize = src->rsize;
    a->kind = K_POOL_IMPORT;
    a->dev = src->dev;
    a->ctx = sim_cur_ctx() ? sim_cur_ctx() : src->ctx;
    a->ext = m;
    a->id = g_next_buf++;
    table_add(a);
    *out = a->base;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    struct sim_ipc_ptr pl;
    if (shareData && ptr_out) {
        memcpy(&pl, shareData->reserved, sizeof pl);
        if (!memcmp(pl.magic, "SIMPOOL", 8) && pl.pid != (int)getpid())
            return sim_ipc_pool_import_ptr(ptr_out, pool, &pl);
    }
    return said(LOCKED(pool_import_ptr(ptr_out, pool, shareData)));
}

CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    (void)minBytesToKeep;
    sim_lock();
    CUresult r = sim_obj_get(pool, T_POOL) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    sim_unlock();
    return r;
}

CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    *pool_out = (CUmemoryPool)sim_g.dev[dev].default_pool;
    sim_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!pool)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    *pool = (CUmemoryPool)sim_g.dev[dev].current_pool;
    sim_unlock();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    sim_lock();
    struct sim_mempool *p = sim_obj_get(pool, T_POOL);
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    if (p && p->dev == dev) {
        sim_g.dev[dev].current_pool = p;
        r = CUDA_SUCCESS;
    }
    sim_unlock();
    return r;
}

/* ---- virtual memory management ---- */
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!granularity || !prop || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && (prop->location.id < 0 || prop->location.id >= sim_g.ndev))
        return CUDA_ERROR_INVALID_DEVICE;
    *granularity = VMM_GRAN;
    return CUDA_SUCCESS;
}

static CUresult vmm_create(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (!handle || !prop || flags != 0 || size == 0 || size % VMM_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    int d = prop->location.id;
    if (d < 0 || d >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct arena *ar = &g_ar[d];
    if (ar->used + size > ar->cap)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct sim_memhandle *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    char name[48];      /* names the device for an importing process */
    snprintf(name, sizeof name, "simcuda-vmm:%d", d);
    h->fd = memfd_create(name, MFD_CLOEXEC);
    if (h->fd < 0 || ftruncate(h->fd, (off_t)size) != 0) {
        if (h->fd >= 0)
            close(h->fd);
        free(h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (handles_add(h) != 0) {
        close(h->fd);
        free(h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    ar->used += size;
    h->dev = d;
    h->size = size;
    h->prop = *prop;
    h->id = g_next_buf++;
    sim_obj_add(h, T_MEMHANDLE);
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(vmm_create(handle, size, prop, flags));
}

static CUresult vmm_release(CUmemGenericAllocationHandle handle)
{
    struct sim_memhandle *h = sim_obj_get((void *)(uintptr_t)handle, T_MEMHANDLE);
    if (!h || h->released)
        return CUDA_ERROR_INVALID_VALUE;
    h->released = 1;
    if (!h->imported)
        g_ar[h->dev].used -= h->size;
    if (h->nmaps == 0)
        handle_free(h);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_release(handle)); }

static CUresult addr_reserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)
{
    if (!ptr || size == 0 || size % VMM_GRAN || flags != 0 || (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (alignment < VMM_GRAN)
        alignment = VMM_GRAN;
    if (g_nres == g_capres) {
        size_t nc = g_capres ? g_capres * 2 : 16;
        struct reservation *nr = realloc(g_res, nc * sizeof *nr);
        if (!nr)
            return CUDA_ERROR_OUT_OF_MEMORY;
        g_res = nr;
        g_capres = nc;
    }
    size_t span = size + alignment;
    void *hint = addr && addr % alignment == 0 ? (void *)(uintptr_t)addr : NULL;
    void *p = MAP_FAILED;
    if (hint) {
        p = mmap(hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
        if (p != MAP_FAILED && p != hint) {
            munmap(p, size);
            p = MAP_FAILED;
        }
        if (p != MAP_FAILED) {
            g_res[g_nres++] = (struct reservation){ (uintptr_t)p, size };
            *ptr = (uintptr_t)p;
            return CUDA_SUCCESS;
        }
    }
    p = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t b = round_up((uintptr_t)p, alignment);
    if (b > (uintptr_t)p)
        munmap(p, b - (uintptr_t)p);
    uintptr_t end = (uintptr_t)p + span;
    if (end > b + size)
        munmap((void *)(b + size), end - (b + size));
    g_res[g_nres++] = (struct reservation){ b, size };
    *ptr = b;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(addr_reserve(ptr, size, alignment, addr, flags));
}

static CUresult addr_free(CUdeviceptr ptr, size_t size)
{
    for (size_t i = 0; i < g_nres; i++)
        if (g_res[i].base == ptr && g_res[i].size == size) {
            struct sim_alloc key = { .base = ptr, .size = size };
            if (tfind(&key, &g_tree, iv_cmp))
                return CUDA_ERROR_INVALID_VALUE;   /* still mapped */
            sim_guard_forget(ptr, size);
            munmap((void *)ptr, size);
            g_res[i] = g_res[--g_nres];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(addr_free(ptr, size)); }

static CUresult vmm_map(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    if (flags != 0 || size == 0 || size % VMM_GRAN || ptr % VMM_GRAN || offset % VMM_GRAN)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_memhandle *h = sim_obj_get((void *)(uintptr_t)handle, T_MEMHANDLE);
    if (!h || h->released)
        return CUDA_ERROR_INVALID_HANDLE;
    if (offset > h->size || size > h->size - offset)
        return CUDA_ERROR_INVALID_VALUE;
    int ri = in_reservation(ptr);
    if (ri < 0 || ptr + size > g_res[ri].base + g_res[ri].size)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc key = { .base = ptr, .size = size };
    if (tfind(&key, &g_tree, iv_cmp))
        return CUDA_ERROR_INVALID_VALUE;    /* already mapped */
    struct sim_alloc *a = calloc(1, sizeof *a);
    struct vmm_map *m = calloc(1, sizeof *m);
    if (!a || !m) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    sim_guard_forget(ptr, size);
    void *p = mmap((void *)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, h->fd, (off_t)offset);
    if (p == MAP_FAILED) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->h = h;
    m->off = offset;
    a->base = ptr;
    a->size = a->rsize = size;
    a->kind = K_VMM;
    a->dev = (signed char)h->dev;
    a->ctx = &sim_g.dev[h->dev].primary;
    a->ext = m;
    a->id = h->id;
    table_add(a);
    h->nmaps++;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(vmm_map(ptr, size, offset, handle, flags));
}

/* Every VMM mapping in [ptr, ptr+size) must exist and lie inside it. */
static CUresult vmm_each(CUdeviceptr ptr, size_t size, int (*fn)(struct sim_alloc *, void *), void *arg)
{
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p = ptr, end = ptr + size;
    while (p < end) {
        struct sim_alloc *a = find(p);
        if (!a || a->kind != K_VMM || a->base != p || a->base + a->size > end)
            return CUDA_ERROR_INVALID_VALUE;
        p = a->base + a->size;
    }
    p = ptr;
    while (p < end) {
        struct sim_alloc *a = find(p);
        p = a->base + a->size;
        fn(a, arg);
    }
    return CUDA_SUCCESS;
}

static int unmap_one(struct sim_alloc *a, void *arg) { (void)arg; alloc_release(a); return 0; }
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_each(ptr, size, unmap_one, NULL)); }

struct access_arg { const CUmemAccessDesc *desc; size_t count; };
static int set_access_one(struct sim_alloc *a, void *arg)
{
    struct access_arg *x = arg;
    struct vmm_map *m = a->ext;
    for (size_t i = 0; i < x->count; i++)
        m->access[x->desc[i].location.id] = (unsigned char)x->desc[i].flags;
    return 0;
}
static CUresult vmm_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    if (!desc || count == 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return CUDA_ERROR_INVALID_VALUE;
        if (desc[i].location.id < 0 || desc[i].location.id >= sim_g.ndev)
            return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    /* a device may only be granted memory it can reach (owner or a peer) */
    uintptr_t p = ptr;
    while (p < ptr + size) {
        struct sim_alloc *a = find(p);
        if (!a || a->kind != K_VMM)
            return CUDA_ERROR_INVALID_VALUE;
        for (size_t i = 0; i < count; i++) {
            int d = desc[i].location.id;
            if (d != a->dev && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && !sim_g.peer_ok[d][a->dev])
                return CUDA_ERROR_INVALID_DEVICE;
        }
        p = a->base + a->size;
    }
    struct access_arg x = { desc, count };
    return vmm_each(ptr, size, set_access_one, &x);
}
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_set_access(ptr, size, desc, count)); }

static CUresult vmm_get_access(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr ptr)
{
    if (!flags || !loc || loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (loc->id < 0 || loc->id >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sim_alloc *a = find(ptr);
    if (!a || a->kind != K_VMM)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = ((struct vmm_map *)a->ext)->access[loc->id];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_get_access(flags, location, ptr)); }

static CUresult vmm_props(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    struct sim_memhandle *h = sim_obj_get((void *)(uintptr_t)handle, T_MEMHANDLE);
    if (!prop || !h)
        return CUDA_ERROR_INVALID_VALUE;
    *prop = h->prop;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_props(prop, handle)); }

static CUresult vmm_retain(CUmemGenericAllocationHandle *handle, void *addr)
{
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find((uintptr_t)addr);
    if (!a || a->kind != K_VMM)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_memhandle *h = ((struct vmm_map *)a->ext)->h;
    if (h->released) {
        /* the handle lives on through the mapping: hand it out again */
        h->released = 0;
        if (!h->imported)
            g_ar[h->dev].used += h->size;
    } else
        return CUDA_ERROR_NOT_SUPPORTED;   /* one retain count per handle in the sim */
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(vmm_retain(handle, addr)); }

/* Shareable handles: a POSIX file descriptor of the handle's memfd. */
static CUresult vmm_export(void *out, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType type, unsigned long long flags)
{
    struct sim_memhandle *h = sim_obj_get((void *)(uintptr_t)handle, T_MEMHANDLE);
    if (!out || !h || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(h->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_NOT_SUPPORTED;
    int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    h->shared = 1;
    *(int *)out = fd;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(vmm_export(shareableHandle, handle, handleType, flags));
}

static CUresult vmm_import(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType type)
{
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    int fd = (int)(intptr_t)osHandle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        WHY("cuMemImportFromShareableHandle: %d is not an open file descriptor: CUDA_ERROR_INVALID_VALUE", fd);
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* find the handle this descriptor was exported from (same process) */
    struct sim_memhandle *src = NULL;
    for (size_t i = 0; i < g_nhandles && !src; i++) {
        struct stat hs;
        if (fstat(g_handles[i]->fd, &hs) == 0 && hs.st_ino == st.st_ino && hs.st_dev == st.st_dev)
            src = g_handles[i];
    }
    /* or exported by another process: the memfd is the memory, its name the device */
    struct sim_memhandle foreign;
    if (!src) {
        char name[128];
        int dev;
        sim_ipc_fd_name(fd, name, sizeof name);
        if (sscanf(name, "simcuda-vmm:%d", &dev) != 1) {
            WHY("cuMemImportFromShareableHandle: descriptor %d is not from cuMemExportToShareableHandle "
                "(it is '%s'): CUDA_ERROR_INVALID_VALUE", fd, name);
            return CUDA_ERROR_INVALID_VALUE;
        }
        if (dev < 0 || dev >= sim_g.ndev) {
            WHY("cuMemImportFromShareableHandle: the memory is on device %d, this process has %d (SIMCUDA_DEVICES): "
                "CUDA_ERROR_INVALID_DEVICE", dev, sim_g.ndev);
            return CUDA_ERROR_INVALID_DEVICE;
        }
        memset(&foreign, 0, sizeof foreign);
        foreign.dev = dev;
        foreign.size = (size_t)st.st_size;
        foreign.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        foreign.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        foreign.prop.location.id = dev;
        foreign.prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        foreign.id = g_next_buf++;
        src = &foreign;
    }
    struct sim_memhandle *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    h->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (h->fd < 0) {
        free(h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    h->dev = src->dev;
    h->size = src->size;
    h->prop = src->prop;
    h->id = src->id;
    h->imported = h->shared = 1;
    if (handles_add(h) != 0) {
        close(h->fd);
        free(h);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    sim_obj_add(h, T_MEMHANDLE);
    *handle = (CUmemGenericAllocationHandle)(uintptr_t)h;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return said(LOCKED(vmm_import(handle, osHandle, shHandleType)));
}

/* ---- IPC: in this process here, from another one in ipc.c ---- */

static CUresult ipc_get(CUipcMemHandle *handle, CUdeviceptr dptr)
{
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find(dptr);
    if (!a || (a->kind != K_DEVICE && a->kind != K_PITCH))
        return CUDA_ERROR_INVALID_VALUE;
    int ai = arena_of(a->base);
    if (ai < 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ipc_mem pl = { "SIMIPC", (int)getpid(), a->dev, a->id, a->base, a->size, a->rsize,
                              a->base - g_ar[ai].base, g_ar[ai].fd };
    _Static_assert(sizeof pl <= sizeof handle->reserved, "IPC handle too small");
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &pl, sizeof pl);
    wrote_all(a);               /* the opener may write it */
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(ipc_get(pHandle, dptr)); }

static CUresult ipc_open(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned flags)
{
    if (!pdptr || (flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    struct sim_ipc_mem pl;
    memcpy(&pl, handle.reserved, sizeof pl);
    if (memcmp(pl.magic, "SIMIPC", 7)) {
        WHY("cuIpcOpenMemHandle: not a handle from cuIpcGetMemHandle (CUDA_ERROR_INVALID_VALUE)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct sim_alloc *src = find(pl.base);
    if (!src || src->id != pl.id || src->base != pl.base) {
        WHY("cuIpcOpenMemHandle: the exported allocation was freed (CUDA_ERROR_INVALID_VALUE)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (src->dev != c->dev && !sim_g.peer_ok[c->dev][src->dev]) {
        WHY("cuIpcOpenMemHandle: device %d cannot reach device %d's memory (SIMCUDA_PEER): "
            "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", c->dev, src->dev);
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    }
    int ai = arena_of(src->base);
    if (ai < 0)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = calloc(1, sizeof *a);
    struct ipc_map *m = calloc(1, sizeof *m);
    if (!a || !m) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    /* map the pages holding the allocation; the offset must be page-aligned */
    size_t off = src->base - g_ar[ai].base;
    size_t delta = off % g_page;
    size_t len = round_up(delta + src->rsize, g_page);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, g_ar[ai].fd, (off_t)(off - delta));
    if (p == MAP_FAILED) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    madvise(p, len, MADV_DONTFORK);
    m->src_ctx = src->ctx;
    m->lazy = (flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != 0;
    m->map = p;
    m->maplen = len;
    m->ai = ai;
    m->foff = (off_t)(off - delta);
    a->base = (uintptr_t)p + delta;
    a->size = src->size;
    a->rsize = src->rsize;
    a->kind = K_IPC;
    a->dev = src->dev;
    a->ctx = c;
    a->ext = m;
    a->id = g_next_buf++;
    table_add(a);
    *pdptr = a->base;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    struct sim_ipc_mem pl;
    memcpy(&pl, handle.reserved, sizeof pl);
    if (pdptr && !(Flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) && !memcmp(pl.magic, "SIMIPC", 7) &&
        pl.pid != (int)getpid())
        return sim_ipc_open_foreign(pdptr, &pl, Flags);
    return said(LOCKED(ipc_open(pdptr, handle, Flags)));
}

CUresult sim_mem_adopt(void *map, size_t maplen, size_t delta, const struct sim_ipc_mem *src,
                       struct sim_mempool *pool, unsigned flags, CUdeviceptr *out)
{
    struct sim_ctx *c;
    CUresult r = sim_need_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (src->dev < 0 || src->dev >= sim_g.ndev) {
        WHY("%s: the memory is on device %d, this process has %d (SIMCUDA_DEVICES): CUDA_ERROR_INVALID_DEVICE",
            pool ? "cuMemPoolImportPointer" : "cuIpcOpenMemHandle", src->dev, sim_g.ndev);
        return CUDA_ERROR_INVALID_DEVICE;
    }
    if (!pool && src->dev != c->dev && !sim_g.peer_ok[c->dev][src->dev]) {
        WHY("cuIpcOpenMemHandle: device %d cannot reach device %d's memory (SIMCUDA_PEER): "
            "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", c->dev, src->dev);
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    }
    struct sim_alloc *a = calloc(1, sizeof *a);
    void *m = pool ? calloc(1, sizeof(struct pool_import)) : calloc(1, sizeof(struct ipc_map));
    if (!a || !m) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (pool)
        *(struct pool_import *)m = (struct pool_import){ pool, map, maplen, -1, 0 };
    else   /* the owner's context in this process: the device's primary one */
        *(struct ipc_map *)m = (struct ipc_map){ &sim_g.dev[src->dev].primary,
                                                 (flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != 0, map, maplen,
                                                 -1, 0 };
    a->base = (uintptr_t)map + delta;
    a->size = src->size;
    a->rsize = src->rsize;
    a->kind = pool ? K_POOL_IMPORT : K_IPC;
    a->dev = (signed char)src->dev;
    a->ctx = c;
    a->ext = m;
    a->id = g_next_buf++;
    if (table_add(a) != 0) {
        free(a);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = a->base;
    return CUDA_SUCCESS;
}

static CUresult ipc_close(CUdeviceptr p)
{
    struct sim_alloc *a = find(p);
    if (!a || a->kind != K_IPC || a->base != p)
        return CUDA_ERROR_INVALID_VALUE;
    alloc_release(a);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(ipc_close(dptr)); }

/* ---------------- copies and sets ---------------- */
enum { CTX_SYNC, CTX_ASYNC };

/* Validates a copy under the lock; the bytes move after it is released. */
static CUresult copy_prep(uintptr_t dst, uintptr_t src, size_t n, CUstream hs, int async)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r;
    if (async) {
        r = sim_stream_resolve(hs, &c, &s);
        if (r == CUDA_SUCCESS)
            r = sim_ctx_check(c);
    } else {
        r = sim_need_ctx(&c);
        if (r == CUDA_SUCCESS)
            r = sim_ctx_sync(c);
    }
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = check_range(dst, n)) != CUDA_SUCCESS)
        return r;
    return check_range(src, n);
}

/* The capturing stream an async operation goes to, or NULL (lock held). */
static struct sim_stream *capturing(CUstream hs, int async)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    if (!async || sim_stream_resolve(hs, &c, &s) != CUDA_SUCCESS || !s)
        return NULL;
    return sim_stream_capture(s) ? s : NULL;
}

static CUresult copy(uintptr_t dst, uintptr_t src, size_t n, CUstream hs, int async)
{
    sim_lock();
    CUresult r = copy_prep(dst, src, n, hs, async);
    struct sim_stream *cap = r == CUDA_SUCCESS ? capturing(hs, async) : NULL;
    if (cap)
        r = n ? sim_capture_memcpy(cap, dst, src, n) : CUDA_SUCCESS;
    int told = r == CUDA_SUCCESS && !cap && copy_writes(dst, n, src, n);
    sim_unlock();
    if (r == CUDA_SUCCESS && n && !cap)
        memmove((void *)dst, (const void *)src, n);
    if (told)
        say_unwritten(src, n);
    return r;
}

#define CP_SYNC(name, D, S, N) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy((uintptr_t)(D), (uintptr_t)(S), (N), NULL, 0); }
#define CP_ASYNC(name, D, S, N, H) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy((uintptr_t)(D), (uintptr_t)(S), (N), (H), 1); }

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) CP_SYNC(x, dst, src, ByteCount)
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) CP_SYNC(x, dst, src, ByteCount)
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dst, src, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dst, src, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) CP_SYNC(x, dstDevice, srcHost, ByteCount)
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) CP_SYNC(x, dstDevice, srcHost, ByteCount)
CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) CP_SYNC(x, dstHost, srcDevice, ByteCount)
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) CP_SYNC(x, dstHost, srcDevice, ByteCount)
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) CP_SYNC(x, dstDevice, srcDevice, ByteCount)
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) CP_SYNC(x, dstDevice, srcDevice, ByteCount)
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstDevice, srcHost, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstDevice, srcHost, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstHost, srcDevice, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstHost, srcDevice, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstDevice, srcDevice, ByteCount, hStream)
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) CP_ASYNC(x, dstDevice, srcDevice, ByteCount, hStream)

static CUresult peer_ctx_ok(CUcontext a, CUcontext b)
{
    return LOCKED((sim_obj_get(a, T_CTX) && sim_obj_get(b, T_CTX)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT);
}
CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUresult r = peer_ctx_ok(dstContext, srcContext);
    return r != CUDA_SUCCESS ? r : copy(dstDevice, srcDevice, ByteCount, NULL, 0);
}
CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUresult r = peer_ctx_ok(dstContext, srcContext);
    return r != CUDA_SUCCESS ? r : copy(dstDevice, srcDevice, ByteCount, NULL, 0);
}
CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUresult r = peer_ctx_ok(dstContext, srcContext);
    return r != CUDA_SUCCESS ? r : copy(dstDevice, srcDevice, ByteCount, hStream, 1);
}
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUresult r = peer_ctx_ok(dstContext, srcContext);
    return r != CUDA_SUCCESS ? r : copy(dstDevice, srcDevice, ByteCount, hStream, 1);
}

/* 2D copies: host, device and unified operands; arrays are not simulated. */
static CUresult pick2d(CUmemorytype t, const void *host, CUdeviceptr dev, CUarray arr, uintptr_t *out)
{
    switch (t) {
    case CU_MEMORYTYPE_HOST: *out = (uintptr_t)host; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_DEVICE: case CU_MEMORYTYPE_UNIFIED: *out = dev; return CUDA_SUCCESS;
    case CU_MEMORYTYPE_ARRAY: (void)arr; return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult copy2d(const CUDA_MEMCPY2D *c, CUstream hs, int async)
{
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t s, d;
    CUresult r = pick2d(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, &s);
    if (r == CUDA_SUCCESS)
        r = pick2d(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, &d);
    if (r != CUDA_SUCCESS)
        return r;
    size_t w = c->WidthInBytes, h = c->Height;
    size_t sp = c->srcPitch ? c->srcPitch : w, dp = c->dstPitch ? c->dstPitch : w;
    if (w == 0 || h == 0)
        return CUDA_SUCCESS;
    if (sp < w || dp < w)
        return CUDA_ERROR_INVALID_VALUE;
    s += c->srcXInBytes + c->srcY * sp;
    d += c->dstXInBytes + c->dstY * dp;
    size_t sspan = sp * (h - 1) + w, dspan = dp * (h - 1) + w;
    sim_lock();
    r = copy_prep(d, s, 0, hs, async);
    if (r == CUDA_SUCCESS)
        r = check_range(d, dspan);
    if (r == CUDA_SUCCESS)
        r = check_range(s, sspan);
    if (r == CUDA_SUCCESS && capturing(hs, async))
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;   /* not simulated */
    int told = r == CUDA_SUCCESS && copy_writes(d, dspan, s, sspan);
    sim_unlock();
    if (r != CUDA_SUCCESS)
        return r;
    if (told)
        say_unwritten(s, sspan);
    for (size_t y = 0; y < h; y++)
        memmove((void *)(d + y * dp), (const void *)(s + y * sp), w);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, hStream, 1); }
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy2d(pCopy, hStream, 1); }

static CUresult copy3d(const CUDA_MEMCPY3D *c, CUstream hs, int async)
{
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t s, d;
    CUresult r = pick2d(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, &s);
    if (r == CUDA_SUCCESS)
        r = pick2d(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, &d);
    if (r != CUDA_SUCCESS)
        return r;
    size_t w = c->WidthInBytes, h = c->Height, z = c->Depth;
    if (w == 0 || h == 0 || z == 0)
        return CUDA_SUCCESS;
    size_t sp = c->srcPitch ? c->srcPitch : w, dp = c->dstPitch ? c->dstPitch : w;
    size_t sh = c->srcHeight ? c->srcHeight : h, dh = c->dstHeight ? c->dstHeight : h;
    if (sp < w || dp < w || sh < h || dh < h)
        return CUDA_ERROR_INVALID_VALUE;
    s += c->srcXInBytes + c->srcY * sp + c->srcZ * sp * sh;
    d += c->dstXInBytes + c->dstY * dp + c->dstZ * dp * dh;
    size_t sspan = sp * sh * (z - 1) + sp * (h - 1) + w, dspan = dp * dh * (z - 1) + dp * (h - 1) + w;
    sim_lock();
    r = copy_prep(d, s, 0, hs, async);
    if (r == CUDA_SUCCESS)
        r = check_range(d, dspan);
    if (r == CUDA_SUCCESS)
        r = check_range(s, sspan);
    if (r == CUDA_SUCCESS && capturing(hs, async))
        r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;   /* not simulated */
    int told = r == CUDA_SUCCESS && copy_writes(d, dspan, s, sspan);
    sim_unlock();
    if (r != CUDA_SUCCESS)
        return r;
    if (told)
        say_unwritten(s, sspan);
    for (size_t k = 0; k < z; k++)
        for (size_t y = 0; y < h; y++)
            memmove((void *)(d + k * dp * dh + y * dp), (const void *)(s + k * sp * sh + y * sp), w);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy3d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy3d(pCopy, NULL, 0); }
CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy3d(pCopy, hStream, 1); }
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return copy3d(pCopy, hStream, 1); }

/* memset of `w`-wide elements over a 2D region (height 1 for the 1D calls) */
static CUresult set2d(CUdeviceptr dst, size_t pitch, unsigned val, unsigned esz, size_t width, size_t height, CUstream hs, int async)
{
    if (width == 0 || height == 0)
        return CUDA_SUCCESS;
    if (dst % esz)
        return CUDA_ERROR_INVALID_VALUE;
    size_t row = width * esz;
    if (height > 1 && pitch < row)
        return CUDA_ERROR_INVALID_VALUE;
    size_t span = (height - 1) * pitch + row;
    sim_lock();
    CUresult r = copy_prep(dst, dst, 0, hs, async);
    if (r == CUDA_SUCCESS)
        r = check_range(dst, span);
    struct sim_stream *cap = r == CUDA_SUCCESS ? capturing(hs, async) : NULL;
    if (cap)
        r = sim_capture_memset(cap, dst, pitch, val, esz, width, height);
    else if (r == CUDA_SUCCESS)
        each_piece(dst, span, wrote_piece);
    sim_unlock();
    if (r != CUDA_SUCCESS || cap)
        return r;
    for (size_t y = 0; y < height; y++) {
        unsigned char *p = (unsigned char *)(uintptr_t)(dst + y * pitch);
        if (esz == 1)
            memset(p, (int)(val & 0xff), width);
        else if (esz == 2) {
            uint16_t v = (uint16_t)val;
            for (size_t i = 0; i < width; i++)
                memcpy(p + 2 * i, &v, 2);
        } else {
            uint32_t v = val;
            for (size_t i = 0; i < width; i++)
                memcpy(p + 4 * i, &v, 4);
        }
    }
    return CUDA_SUCCESS;
}
CUresult sim_memset2d(CUdeviceptr dst, size_t pitch, unsigned val, unsigned esz, size_t width, size_t height, CUstream hs)
{
    if (esz != 1 && esz != 2 && esz != 4)
        return CUDA_ERROR_INVALID_VALUE;
    return set2d(dst, height > 1 ? pitch : 0, val, esz, width, height, hs, 1);
}

CUresult sim_memcpy3d(const CUDA_MEMCPY3D *c, CUstream hs) { return copy3d(c, hs, 1); }

#define SET1(E, V, N, H, A) { ENTER(CUDA_ERROR_INVALID_VALUE); return set2d(dstDevice, 0, (V), (E), (N), 1, (H), (A)); }
#define SET2(E, V, H, A) { ENTER(CUDA_ERROR_INVALID_VALUE); return set2d(dstDevice, dstPitch, (V), (E), Width, Height, (H), (A)); }
CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) SET1(1, uc, N, NULL, 0)
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) SET1(1, uc, N, NULL, 0)
CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) SET1(2, us, N, NULL, 0)
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) SET1(2, us, N, NULL, 0)
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) SET1(4, ui, N, NULL, 0)
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) SET1(4, ui, N, NULL, 0)
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) SET1(1, uc, N, hStream, 1)
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) SET1(1, uc, N, hStream, 1)
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) SET1(2, us, N, hStream, 1)
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) SET1(2, us, N, hStream, 1)
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) SET1(4, ui, N, hStream, 1)
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) SET1(4, ui, N, hStream, 1)
CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) SET2(1, uc, NULL, 0)
CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) SET2(1, uc, NULL, 0)
CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height) SET2(2, us, NULL, 0)
CUresult CUDAAPI cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height) SET2(2, us, NULL, 0)
CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height) SET2(4, ui, NULL, 0)
CUresult CUDAAPI cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height) SET2(4, ui, NULL, 0)
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) SET2(1, uc, hStream, 1)
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) SET2(1, uc, hStream, 1)
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream) SET2(2, us, hStream, 1)
CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream) SET2(2, us, hStream, 1)
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream) SET2(4, ui, hStream, 1)
CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream) SET2(4, ui, hStream, 1)

/* ---------------- pointer attributes ----------------
 * Every answer below, and the text of cuda.h / cuda_runtime_api.h (or the
 * real-GPU trace) it rests on, is a row of sim/driver/README.md's "Pointer
 * queries" table; sim/tests/drv_ptrattr.c walks the whole table. */
static unsigned mem_type(const struct sim_alloc *a)
{
    return (a->kind == K_HOST || a->kind == K_REGISTERED) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
}

/* Stream-ordered (pool, graph) and VMM memory belongs to no context: its
 * CU_POINTER_ATTRIBUTE_CONTEXT is NULL. */
static int context_less(const struct sim_alloc *a)
{
    return a->kind == K_POOL || a->kind == K_POOL_IMPORT || a->kind == K_VMM || a->kind == K_GRAPH;
}

/* The host may dereference it: pinned, registered and managed memory. */
static int host_accessible(const struct sim_alloc *a)
{
    return a->kind == K_HOST || a->kind == K_REGISTERED || a->kind == K_MANAGED;
}

/* CU_POINTER_ATTRIBUTE_ACCESS_FLAGS of device `dev` (context ctx) on a:
 * the grant itself where one was made (CU_MEM_ACCESS_FLAGS_PROT_* have the
 * values of CU_POINTER_ATTRIBUTE_ACCESS_FLAG_*), else all or nothing. */
static unsigned access_flags(const struct sim_alloc *a, int dev, const struct sim_ctx *ctx)
{
    switch (a->kind) {
    case K_VMM: return ((struct vmm_map *)a->ext)->access[dev];
    case K_POOL: return ((struct sim_mempool *)a->ext)->access[dev];
    case K_POOL_IMPORT: return ((struct pool_import *)a->ext)->pool->access[dev];
    case K_GRAPH: return a->dev == dev ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE : ((unsigned char *)a->ext)[dev];
    default:
        return alloc_accessible(a, dev, ctx) ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
                                             : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
    }
}

/* cuPointerGetAttributes' list of supported attributes (cuda.h). */
static int batch_attr(CUpointer_attribute attr)
{
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: case CU_POINTER_ATTRIBUTE_RANGE_SIZE: case CU_POINTER_ATTRIBUTE_MAPPED:
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
        return 1;
    default:
        return 0;
    }
}

/* strict: cuPointerGetAttribute (an error where no value exists);
 * otherwise one attribute of cuPointerGetAttributes (NULL / 0 values and
 * success, except an attribute it does not support).  Lock held. */
static CUresult ptr_attr(void *data, CUpointer_attribute attr, CUdeviceptr ptr, int strict)
{
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    if (!strict && !batch_attr(attr))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find(ptr);
    struct sim_ctx *cur = sim_cur_ctx();
    /* a value that does not exist: an error for cuPointerGetAttribute, a
     * zero of the attribute's size for cuPointerGetAttributes */
#define NONE_(type, err) do { if (strict) return (err); *(type *)data = (type)0; return CUDA_SUCCESS; } while (0)
    if (attr == CU_POINTER_ATTRIBUTE_ACCESS_FLAGS) {      /* cuPointerGetAttribute only */
        if (!cur)
            return CUDA_ERROR_INVALID_CONTEXT;
        if (!a)
            return CUDA_ERROR_INVALID_VALUE;
        *(unsigned *)data = access_flags(a, cur->dev, cur);
        return CUDA_SUCCESS;
    }
    if (attr == CU_POINTER_ATTRIBUTE_DEVICE_POINTER) {
        if (!cur)
            NONE_(CUdeviceptr, CUDA_ERROR_INVALID_CONTEXT);
        /* pageable memory: through the same address when the device
         * reads pageable memory (SIMCUDA_HMM=1) */
        int ok = a ? alloc_accessible(a, cur->dev, cur)
                   : sim_g.hmm && arena_of(ptr) < 0 && in_reservation(ptr) < 0 && host_mapped(ptr);
        if (!ok)
            NONE_(CUdeviceptr, CUDA_ERROR_INVALID_VALUE);
        *(CUdeviceptr *)data = ptr;
        return CUDA_SUCCESS;
    }
    if (!a) {
        if (strict)
            return CUDA_ERROR_INVALID_VALUE;
        switch (attr) {   /* cuPointerGetAttributes: "default NULL values" */
        case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = NULL; break;
        case CU_POINTER_ATTRIBUTE_HOST_POINTER: *(void **)data = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = NULL; break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
            *(unsigned *)data = 0;
            break;
        case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = 0; break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = 0; break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = 0; break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = -2; break;   /* the H200's answer (traces) */
        default: *(bool *)data = 0; break;      /* the booleans */
        }
        return CUDA_SUCCESS;
    }
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = context_less(a) ? NULL : (CUcontext)a->ctx;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = mem_type(a);
        break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!host_accessible(a))
            NONE_(void *, CUDA_ERROR_INVALID_VALUE);
        *(void **)data = (void *)(uintptr_t)ptr;
        break;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
        /* "ptr must be a pointer to memory obtained from cuMemAlloc()";
         * the query sets SYNC_MEMOPS.  The tokens name the allocation. */
        if (a->kind != K_DEVICE && a->kind != K_PITCH)
            return CUDA_ERROR_INVALID_VALUE;
        ((CUDA_POINTER_ATTRIBUTE_P2P_TOKENS *)data)->p2pToken = a->id;
        ((CUDA_POINTER_ATTRIBUTE_P2P_TOKENS *)data)->vaSpaceToken = (unsigned)getpid();
        a->flags |= 0x80000000u;
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(bool *)data = (a->flags & 0x80000000u) != 0;
        break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = a->id;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(bool *)data = a->kind == K_MANAGED;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = a->dev;
        break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(bool *)data = a->kind == K_DEVICE || a->kind == K_PITCH;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: {
        /* VMM: the reservation the mapping lies in */
        uintptr_t base = a->base;
        size_t size = a->size;
        int ri = a->kind == K_VMM ? in_reservation(a->base) : -1;
        if (ri >= 0) {
            base = g_res[ri].base;
            size = g_res[ri].size;
        }
        if (attr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR)
            *(CUdeviceptr *)data = base;
        else
            *(size_t *)data = size;
        break;
    }
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(bool *)data = 1;
        break;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned *)data = a->kind == K_VMM ? (unsigned)((struct vmm_map *)a->ext)->h->prop.requestedHandleTypes :
                            a->kind == K_POOL ? (unsigned)((struct sim_mempool *)a->ext)->props.handleTypes : 0;
        break;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(bool *)data = 0;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = a->kind == K_POOL ? (CUmemoryPool)a->ext :
                                a->kind == K_POOL_IMPORT ? (CUmemoryPool)((struct pool_import *)a->ext)->pool : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        *(size_t *)data = a->size;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(void **)data = (void *)a->base;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:   /* a VMM mapping has its handle's id */
        *(unsigned long long *)data = a->id;
        break;
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
        *(bool *)data = 0;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
#undef NONE_
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(ptr_attr(data, attribute, ptr, 1));
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data, CUdeviceptr ptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!attributes || !data)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < numAttributes && r == CUDA_SUCCESS; i++)
        r = ptr_attr(data[i], attributes[i], ptr, 0);
    sim_unlock();
    return r;
}

static CUresult ptr_set(const void *value, CUpointer_attribute attr, CUdeviceptr ptr)
{
    if (!value || attr != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_alloc *a = find(ptr);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    if (*(const unsigned *)value)
        a->flags |= 0x80000000u;
    else
        a->flags &= ~0x80000000u;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(ptr_set(value, attribute, ptr));
}

/* ---------------- the launch model (operands.c, guard.c) ---------------- */
/* A parameter the kernel dereferences faults when its value points where the
 * device may not go (sim_mem_accessible), except one past the end of an
 * allocation it may access: an end iterator, never dereferenced. */
int sim_mem_deref_ok(uintptr_t w, int dev, const struct sim_ctx *ctx)
{
    if (sim_mem_accessible(w, dev, ctx))
        return 1;
    struct sim_alloc *a = find(w - 1);
    return a && a->base + a->size == w && alloc_accessible(a, dev, ctx);
}

int sim_mem_in_arena(uintptr_t p)
{
    return arena_of(p) >= 0;
}

/* "device 1 memory (allocation 0x... of 1024 bytes)" and the like. */
void sim_mem_describe(uintptr_t p, char *buf, size_t len)
{
    struct sim_alloc *a = find(p);
    int ai = arena_of(p);
    if (a && a->kind != K_HOST && a->kind != K_REGISTERED && a->kind != K_MANAGED)
        snprintf(buf, len, "device %d memory, allocation 0x%llx of %zu bytes", a->dev,
                 (unsigned long long)a->base, a->size);
    else if (a)
        snprintf(buf, len, "%s memory", a->kind == K_MANAGED ? "managed" : "pinned host");
    else if (ai >= 0 && ai < SIM_MAX_DEVICES)
        snprintf(buf, len, "device %d memory, not allocated", ai);
    else if (in_reservation(p) >= 0)
        snprintf(buf, len, "a reserved virtual address range with nothing mapped");
    else
        snprintf(buf, len, "pageable host memory");
}

/* ---- the protection plan: every mapping a launch on (dev, ctx) may not
 * touch, as page-aligned ranges with what maps them back ---- */
static struct sim_alloc **g_all;
static size_t g_nall, g_capall;
static void collect_all(const void *nodep, VISIT which, int depth)
{
    (void)depth;
    if ((which == postorder || which == leaf) && g_nall < g_capall)
        g_all[g_nall++] = *(struct sim_alloc *const *)nodep;
}

static uintptr_t page_down(uintptr_t p) { return p & ~(uintptr_t)(g_page - 1); }
static uintptr_t page_up(uintptr_t p) { return (p + g_page - 1) & ~(uintptr_t)(g_page - 1); }

/* Appends an entry, merged with the previous one when they continue each
 * other (same file, adjacent offsets). */
static size_t plan_add(struct sim_prot *out, size_t n, size_t max, uintptr_t base, size_t len, int fd, off_t off,
                       int kind)
{
    if (len == 0)
        return n;
    if (n) {
        struct sim_prot *l = &out[n - 1];
        if (l->kind == kind && l->fd == fd && l->base + l->len == base &&
            (kind == SIM_PROT_HOLE || l->off + (off_t)l->len == off)) {
            l->len += len;
            return n;
        }
    }
    if (n == max)
        return n;       /* full: the rest stays accessible (a fault missed, never a false one) */
    out[n] = (struct sim_prot){ base, len, fd, off, kind };
    return n + 1;
}

size_t sim_mem_prot_plan(int dev, const struct sim_ctx *ctx, struct sim_prot *out, size_t max)
{
    g_capall = g_nallocs + 1;
    g_all = malloc(g_capall * sizeof *g_all);
    if (!g_all)
        return 0;
    g_nall = 0;
    twalk(g_tree, collect_all);         /* in address order */
    size_t n = 0;
    /* device arenas: all of it when nothing in it is accessible, else the
     * pages of each inaccessible allocation that hold no accessible byte */
    for (int j = 0; j < sim_g.ndev; j++) {
        struct arena *ar = &g_ar[j];
        if (!ar->base)
            continue;
        size_t nacc = 0, ninacc = 0;
        for (size_t i = 0; i < g_nall; i++) {
            struct sim_alloc *a = g_all[i];
            if (a->base < ar->base || a->base >= ar->base + ar->vsize)
                continue;
            if (alloc_accessible(a, dev, ctx))
                nacc++;
            else
                ninacc++;
        }
        if (ninacc == 0)
            continue;
        if (nacc == 0) {
            n = plan_add(out, n, max, ar->base, ar->vsize, ar->fd, 0, SIM_PROT_FILE);
            continue;
        }
        uintptr_t prev_end = ar->base;     /* end of the last accessible allocation */
        for (size_t i = 0; i < g_nall; i++) {
            struct sim_alloc *a = g_all[i];
            if (a->base < ar->base || a->base >= ar->base + ar->vsize)
                continue;
            if (alloc_accessible(a, dev, ctx)) {
                prev_end = a->base + a->rsize;
                continue;
            }
            uintptr_t lo = page_down(a->base), hi = page_up(a->base + a->rsize);
            if (page_up(prev_end) > lo)
                lo = page_up(prev_end);
            for (size_t k = i + 1; k < g_nall; k++) {
                struct sim_alloc *b = g_all[k];
                if (b->base >= ar->base + ar->vsize || b->base >= hi)
                    break;
                if (alloc_accessible(b, dev, ctx)) {
                    if (page_down(b->base) < hi)
                        hi = page_down(b->base);
                    break;
                }
            }
            if (lo < hi)
                n = plan_add(out, n, max, lo, hi - lo, ar->fd, (off_t)(lo - ar->base), SIM_PROT_FILE);
        }
    }
    /* second mappings and VMM mappings of their own */
    for (size_t i = 0; i < g_nall; i++) {
        struct sim_alloc *a = g_all[i];
        if (alloc_accessible(a, dev, ctx))
            continue;
        /* another process's memory (ai < 0) cannot be mapped back: left
         * accessible (a pointer parameter to it still faults, operands.c) */
        if (a->kind == K_IPC && ((struct ipc_map *)a->ext)->ai >= 0) {
            struct ipc_map *m = a->ext;
            n = plan_add(out, n, max, (uintptr_t)m->map, m->maplen, g_ar[m->ai].fd, m->foff, SIM_PROT_FILE);
        } else if (a->kind == K_POOL_IMPORT && ((struct pool_import *)a->ext)->ai >= 0) {
            struct pool_import *m = a->ext;
            n = plan_add(out, n, max, (uintptr_t)m->map, m->maplen, g_ar[m->ai].fd, m->foff, SIM_PROT_FILE);
        } else if (a->kind == K_VMM) {
            struct vmm_map *m = a->ext;
            n = plan_add(out, n, max, a->base, a->rsize, m->h->fd, (off_t)m->off, SIM_PROT_FILE);
        }
    }
    /* reserved ranges with nothing mapped: already inaccessible; listed so a
     * twin's access there is a device fault, not a crash */
    for (size_t r = 0; r < g_nres; r++) {
        uintptr_t p = g_res[r].base, end = g_res[r].base + g_res[r].size;
        for (size_t i = 0; i < g_nall; i++) {
            struct sim_alloc *a = g_all[i];
            if (a->kind != K_VMM || a->base < p || a->base >= end)
                continue;
            n = plan_add(out, n, max, p, a->base - p, -1, 0, SIM_PROT_HOLE);
            p = a->base + a->rsize;
        }
        n = plan_add(out, n, max, p, end > p ? end - p : 0, -1, 0, SIM_PROT_HOLE);
    }
    free(g_all);
    g_all = NULL;
    return n;
}

/* ---- module globals (globals.c): device memory of a context that
 * cuMemFree does not take ---- */
CUresult sim_mem_global_alloc(struct sim_ctx *ctx, size_t size, const void *init, CUdeviceptr *out,
                              unsigned long long *id)
{
    CUresult r;
    struct sim_alloc *a = alloc_in(ctx->dev, size, K_GLOBAL, ctx->dev, ctx, &r);
    if (!a)
        return r;
    /* through the memfd, not the mapping: a twin running on another
     * device may have the mapping protected right now (guard.c) */
    struct arena *ar = &g_ar[ctx->dev];
    off_t off = (off_t)(a->base - ar->base);
    unsigned char zero[4096];
    memset(zero, 0, sizeof zero);
    for (size_t done = 0; done < size;) {
        size_t chunk = size - done;
        const void *src = init ? (const unsigned char *)init + done : zero;
        if (!init && chunk > sizeof zero)
            chunk = sizeof zero;
        ssize_t w = pwrite(ar->fd, src, chunk, off + (off_t)done);
        if (w <= 0) {
            alloc_release(a);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        done += (size_t)w;
    }
    *out = a->base;
    *id = a->id;
    return CUDA_SUCCESS;
}

int sim_mem_global_live(CUdeviceptr p, unsigned long long id)
{
    struct sim_alloc *a = find(p);
    return a && a->kind == K_GLOBAL && a->base == p && a->id == id;
}

void sim_mem_global_free(CUdeviceptr p, unsigned long long id)
{
    if (sim_mem_global_live(p, id))
        alloc_release(find(p));
}
