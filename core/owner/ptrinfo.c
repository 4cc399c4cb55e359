/* ptrinfo: addresses devcheck did not see allocated (see ptrinfo.h). */
#include "core/owner/ptrinfo.h"
#include "core/base/cudacall.h"
#include "common/forklock.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the answer cache ----------------------------------------------------------------------- *
 * Direct-mapped, one 64-bit word per entry: the address mixed with the
 * current generation, low 2 bits the answer.  Readers and writers use
 * relaxed atomics only: a torn or overwritten entry is a miss, never a wrong
 * answer (the whole 62-bit tag must match). */
#define CACHE_SIZE 4096
static uint64_t cache[CACHE_SIZE];
static uint64_t generation = 1;


static uint64_t tag_of(uintptr_t v)
{
    return (dc_mix64(v) ^ dc_mix64(__atomic_load_n(&generation, __ATOMIC_RELAXED) * 0x9e3779b97f4a7c15ull)) & ~(uint64_t)3;
}

static int cached(uintptr_t v, int *answer)
{
    uint64_t t = tag_of(v);
    uint64_t e = __atomic_load_n(&cache[dc_mix64(v) % CACHE_SIZE], __ATOMIC_RELAXED);
    if ((e & ~(uint64_t)3) != t)
        return 0;
    *answer = (int)(e & 3);
    return 1;
}

static void remember(uintptr_t v, int answer)
{
    __atomic_store_n(&cache[dc_mix64(v) % CACHE_SIZE], tag_of(v) | (uint64_t)answer, __ATOMIC_RELAXED);
}

void dc_addr_forget(void)
{
    __atomic_fetch_add(&generation, 1, __ATOMIC_RELAXED);
}

/* ---- the driver ------------------------------------------------------------------------------ */

/* The driver's description of v; 1 when it knows v. */
static int driver_knows(uintptr_t v, struct dc_alloc *a)
{
    unsigned type = 0;
    int ordinal = -2;
    CUdeviceptr start = 0;
    size_t size = 0;
    bool managed = 0;
    CUcontext ctx = NULL;
    CUmemoryPool pool = NULL;
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE,  CU_POINTER_ATTRIBUTE_IS_MANAGED,     CU_POINTER_ATTRIBUTE_CONTEXT,
        CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
    };
    void *data[] = { &type, &ordinal, &start, &size, &managed, &ctx, &pool };
    if (DC_HAS(cuPointerGetAttributes)) {
        if (DC_CALL(cuPointerGetAttributes, sizeof attrs / sizeof attrs[0], attrs, data, (CUdeviceptr)v) !=
            CUDA_SUCCESS)
            return 0;
    } else {
        /* one by one: cuPointerGetAttribute fails for memory the driver does not know */
        if (DC_CALL(cuPointerGetAttribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)v) != CUDA_SUCCESS)
            return 0;
        for (size_t i = 1; i < sizeof attrs / sizeof attrs[0]; i++)
            (void)DC_CALL(cuPointerGetAttribute, data[i], attrs[i], (CUdeviceptr)v);
    }
    if (!type || !size || start > v || v - start >= size)
        return 0;
    memset(a, 0, sizeof *a);
    a->base = (uintptr_t)start;
    a->size = size;
    a->from_driver = 1;
    a->ctx = (uint64_t)(uintptr_t)ctx;
    if (managed || type == CU_MEMORYTYPE_UNIFIED) {
        a->kind = DC_MEM_MANAGED;
        a->owner = ordinal >= 0 ? ordinal : -1;
    } else if (type == CU_MEMORYTYPE_HOST) {
        a->kind = DC_MEM_HOST_PINNED;
        a->owner = -1;
    } else if (type == CU_MEMORYTYPE_DEVICE && ordinal >= 0 && ordinal < DC_MAX_DEVICES) {
        a->kind = pool ? DC_MEM_POOL : DC_MEM_DEVICE;
        a->pool = (uint64_t)(uintptr_t)pool;
        a->owner = ordinal;
    } else {
        return 0;                       /* arrays and what else devcheck cannot name */
    }
    return 1;
}

int dc_addr_lookup(uintptr_t v, struct dc_alloc *a)
{
    int answer;
    if (!v || cached(v, &answer))
        return v ? answer : DC_ADDR_NOTHING;
    if (driver_knows(v, a)) {
        (void)dc_reg_add(a);            /* found in the registry from now on */
        return DC_ADDR_KNOWN;
    }
    struct dc_alloc before;
    if (driver_knows(v - 1, &before) && before.base + before.size == v) {
        (void)dc_reg_add(&before);
        remember(v, DC_ADDR_END);
        return DC_ADDR_END;
    }
    uintptr_t end;
    int writable;
    char what[8];
    answer = dc_maps_lookup(v, &end, &writable, what, sizeof what) == DC_MAP_HOST ? DC_ADDR_HOST : DC_ADDR_NOTHING;
    remember(v, answer);
    return answer;
}

/* ---- the mappings ------------------------------------------------------------------------------ */

int dc_maps_classify(const char *line, uintptr_t *lo, uintptr_t *hi, int *writable, char *what, size_t what_len)
{
    unsigned long a, b, off, inode;
    char perms[8], dev[16];
    int pos = 0;
    if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &a, &b, perms, &off, dev, &inode, &pos) < 6)
        return DC_MAP_NONE;
    *lo = a;
    *hi = b;
    *writable = perms[1] == 'w';
    const char *path = pos > 0 ? line + pos : "";
    while (*path == ' ')
        path++;
    size_t plen = strcspn(path, "\n");
#define OTHER(...) do { if (what && what_len) snprintf(what, what_len, __VA_ARGS__); return DC_MAP_OTHER; } while (0)
    if (perms[0] != 'r')
        OTHER("a mapping without read permission (%.4s)", perms);
    if (plen >= 5 && !strncmp(path, "/dev/", 5) && strncmp(path, "/dev/shm/", 9) && strncmp(path, "/dev/zero", 9))
        OTHER("a device file mapping (%.*s)", (int)(plen > 64 ? 64 : plen), path);
    if (plen && path[0] == '[' && strncmp(path, "[heap]", 6) && strncmp(path, "[stack", 6) &&
        strncmp(path, "[anon:", 6))
        OTHER("a kernel special mapping (%.*s)", (int)(plen > 32 ? 32 : plen), path);
    if (perms[3] == 's' && !strncmp(path, "/memfd:", 7))
        OTHER("a shared memfd mapping (%.*s), device memory's backing", (int)(plen > 48 ? 48 : plen), path);
#undef OTHER
    return DC_MAP_HOST;
}

/* The cached table of mappings, read again when an address is in none. */
struct map { uintptr_t lo, hi; int cls, writable; char what[96]; };
static pthread_rwlock_t maps_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct map *maps;
static size_t nmaps;

void dc_ptrinfo_fork_prepare(void) { pthread_rwlock_wrlock(&maps_lock); }
void dc_ptrinfo_fork_parent(void) { pthread_rwlock_unlock(&maps_lock); }
void dc_ptrinfo_fork_child(void) { dc_rwlock_fork_child(&maps_lock, 0); }

static void maps_read_locked(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    size_t cap = 256, n = 0;
    struct map *m = malloc(cap * sizeof *m);
    char buf[8192];
    size_t have = 0;
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r <= 0)
            break;
        have += (size_t)r;
        buf[have] = 0;
        char *line = buf, *nl;
        while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
            *nl = 0;
            struct map e;
            memset(&e, 0, sizeof e);
            e.cls = dc_maps_classify(line, &e.lo, &e.hi, &e.writable, e.what, sizeof e.what);
            if (e.cls != DC_MAP_NONE && m) {
                if (n == cap) {
                    struct map *q = realloc(m, 2 * cap * sizeof *m);
                    if (!q) {
                        free(m);
                        m = NULL;
                    } else {
                        m = q;
                        cap *= 2;
                    }
                }
                if (m)
                    m[n++] = e;
            }
            line = nl + 1;
        }
        have -= (size_t)(line - buf);
        memmove(buf, line, have);
        if (have == sizeof buf - 1)
            have = 0;                   /* a line longer than the buffer: dropped */
    }
    close(fd);
    if (!m)
        return;
    free(maps);
    maps = m;
    nmaps = n;
}

static const struct map *find_locked(uintptr_t v)
{
    size_t lo = 0, hi = nmaps;         /* the kernel lists mappings in address order */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v < maps[mid].lo)
            hi = mid;
        else if (v >= maps[mid].hi)
            lo = mid + 1;
        else
            return &maps[mid];
    }
    return NULL;
}

int dc_maps_lookup(uintptr_t v, uintptr_t *end, int *writable, char *what, size_t what_len)
{
    const struct dc_process_queries *q = dc_process_queries();
    if (q) {                            /* a record's mapping (the replay), classified as a live one */
        char line[512];
        uintptr_t lo;
        if (!q->maps_line || !q->maps_line(v, line, sizeof line))
            return DC_MAP_NONE;
        int c = dc_maps_classify(line, &lo, end, writable, what, what_len);
        return c != DC_MAP_NONE && lo <= v && v < *end ? c : DC_MAP_NONE;
    }
    /* The table is read again when it has the address in no mapping, or in
     * one that is not host memory: mappings change in place (glibc's thread
     * arenas and ASan's allocator reserve PROT_NONE space and mprotect it as
     * they grow), so only a host answer is trusted from the table. */
    int cls = DC_MAP_NONE;
    for (int round = 0; round < 2 && cls != DC_MAP_HOST; round++) {
        if (round == 0)
            pthread_rwlock_rdlock(&maps_lock);
        else {
            pthread_rwlock_wrlock(&maps_lock);
            maps_read_locked();
        }
        const struct map *m = maps ? find_locked(v) : NULL;
        cls = DC_MAP_NONE;
        if (m) {
            cls = m->cls;
            *end = m->hi;
            *writable = m->writable;
            if (what && what_len)
                snprintf(what, what_len, "%s", m->what);
        }
        pthread_rwlock_unlock(&maps_lock);
    }
    return cls;
}
