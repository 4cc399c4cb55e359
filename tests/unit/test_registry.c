/* Unit tests for core/owner/registry.c: interior lookups, reuse, overlap replacement,
 * 1,000,000 live allocations, may_access for every kind, concurrency. */
#include "core/owner/registry.h"
#include "tests/unit/unit.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static struct dc_alloc mk(uintptr_t base, size_t size, enum dc_mem_kind kind, int owner)
{
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = size;
    a.kind = kind;
    a.owner = owner;
    return a;
}

static int owner_at(uintptr_t addr)
{
    struct dc_alloc a;
    return dc_reg_lookup(addr, &a) == 0 ? a.owner : -100;
}

static void test_interior(void)
{
    dc_reg_reset();
    /* sizes around every level boundary, bases aligned and not */
    static const size_t sizes[] = { 1, 2, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097,
                                    65536 + 3, (1u << 20) + 1, (size_t)1 << 30, ((size_t)1 << 33) + 7 };
    uintptr_t base = 0x100000000000ull;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int misalign = 0; misalign < 2; misalign++) {
            uintptr_t b = base + (misalign ? 13 : 0);
            struct dc_alloc a = mk(b, sizes[i], DC_MEM_DEVICE, (int)(i % 8));
            CHECK_EQ_LL(dc_reg_add(&a), 0);
            struct dc_alloc got;
            CHECK_EQ_LL(dc_reg_lookup(b, &got), 0);                 /* first byte */
            CHECK(got.base == b && got.size == sizes[i]);
            CHECK_EQ_LL(dc_reg_lookup(b + sizes[i] - 1, &got), 0);  /* last byte */
            CHECK(got.base == b);
            CHECK_EQ_LL(dc_reg_lookup(b + sizes[i] / 2, &got), 0);  /* middle */
            CHECK_EQ_LL(dc_reg_lookup(b + sizes[i], NULL), -1);     /* one past the end */
            CHECK_EQ_LL(dc_reg_lookup(b - 1, NULL), -1);            /* one before */
            CHECK_EQ_LL(dc_reg_remove(b, &got), 0);
            CHECK(got.size == sizes[i]);
            CHECK_EQ_LL(dc_reg_lookup(b, NULL), -1);
            base += ((uintptr_t)1 << 36);
        }
    }
    /* neighbours touching each other */
    struct dc_alloc x = mk(0x200000, 4096, DC_MEM_DEVICE, 1);
    struct dc_alloc y = mk(0x201000, 4096, DC_MEM_DEVICE, 2);
    CHECK_EQ_LL(dc_reg_add(&x), 0);
    CHECK_EQ_LL(dc_reg_add(&y), 0);
    CHECK_EQ_LL(owner_at(0x200fff), 1);
    CHECK_EQ_LL(owner_at(0x201000), 2);
    CHECK_EQ_LL(owner_at(0x201fff), 2);
    CHECK_EQ_LL(owner_at(0x202000), -100);
    CHECK_EQ_LL(dc_reg_count(), 2);
    /* bad ranges leave the table unchanged */
    struct dc_alloc z = mk(0x300000, 0, DC_MEM_DEVICE, 0);
    CHECK_EQ_LL(dc_reg_add(&z), -1);
    z = mk(UINTPTR_MAX - 10, 100, DC_MEM_DEVICE, 0);
    CHECK_EQ_LL(dc_reg_add(&z), -1);
    CHECK_EQ_LL(dc_reg_count(), 2);
    /* remove needs the exact base */
    CHECK_EQ_LL(dc_reg_remove(0x200010, NULL), -1);
    CHECK_EQ_LL(dc_reg_count(), 2);
    /* the very top of the address space and a huge range */
    z = mk(UINTPTR_MAX - 99, 100, DC_MEM_DEVICE, 3);
    CHECK_EQ_LL(dc_reg_add(&z), 0);
    CHECK_EQ_LL(owner_at(UINTPTR_MAX), 3);
    z = mk((uintptr_t)1 << 62, (size_t)1 << 61, DC_MEM_VMM, 4);
    CHECK_EQ_LL(dc_reg_add(&z), 0);
    CHECK_EQ_LL(owner_at(((uintptr_t)1 << 62) + ((uintptr_t)1 << 61) - 1), 4);
    CHECK_EQ_LL(owner_at(((uintptr_t)1 << 62) + ((uintptr_t)1 << 61)), -100);
    dc_reg_reset();
    CHECK_EQ_LL(dc_reg_count(), 0);
}

static void test_reuse_and_overlap(void)
{
    dc_reg_reset();
    struct dc_alloc a = mk(0x7f0000000000, 1 << 20, DC_MEM_DEVICE, 1);
    a.alloc_stack = 11;
    CHECK_EQ_LL(dc_reg_add(&a), 0);
    struct dc_alloc got;
    CHECK_EQ_LL(dc_reg_lookup(a.base + 100, &got), 0);
    uint64_t s1 = got.serial;
    CHECK_EQ_LL(dc_reg_remove(a.base, NULL), 0);
    CHECK_EQ_LL(dc_reg_lookup(a.base + 100, NULL), -1);
    /* reused by another device: never the stale owner */
    a.owner = 0;
    a.alloc_stack = 12;
    CHECK_EQ_LL(dc_reg_add(&a), 0);
    CHECK_EQ_LL(dc_reg_lookup(a.base + 100, &got), 0);
    CHECK_EQ_LL(got.owner, 0);
    CHECK_EQ_LL(got.alloc_stack, 12);
    CHECK(got.serial > s1);

    /* overlap replacement: a missed free, then a new allocation over it */
    dc_reg_reset();
    uintptr_t B = 0x500000000;
    struct dc_alloc p = mk(B, 4096, DC_MEM_DEVICE, 1);
    struct dc_alloc q = mk(B + 8192, 4096, DC_MEM_DEVICE, 2);
    struct dc_alloc r = mk(B + 20000, 64, DC_MEM_DEVICE, 3);
    struct dc_alloc s = mk(B - 4096, 4097, DC_MEM_DEVICE, 5);  /* its last byte is B */
    CHECK_EQ_LL(dc_reg_add(&s), 0);
    CHECK_EQ_LL(dc_reg_add(&p), 0);            /* p overlaps s's last byte: s goes */
    CHECK_EQ_LL(owner_at(B - 1), -100);
    CHECK_EQ_LL(dc_reg_add(&q), 0);
    CHECK_EQ_LL(dc_reg_add(&r), 0);
    CHECK_EQ_LL(dc_reg_count(), 3);
    struct dc_alloc big = mk(B + 100, 10000, DC_MEM_DEVICE, 7);   /* covers part of p, all of q */
    CHECK_EQ_LL(dc_reg_add(&big), 0);
    CHECK_EQ_LL(dc_reg_count(), 2);                                /* big and r */
    CHECK_EQ_LL(owner_at(B), -100);                                 /* p is gone entirely */
    CHECK_EQ_LL(owner_at(B + 100), 7);
    CHECK_EQ_LL(owner_at(B + 8192), 7);
    CHECK_EQ_LL(owner_at(B + 10099), 7);
    CHECK_EQ_LL(owner_at(B + 10100), -100);
    CHECK_EQ_LL(owner_at(B + 20000), 3);
    /* a range inside a live one replaces it */
    struct dc_alloc inner = mk(B + 200, 16, DC_MEM_DEVICE, 8);
    CHECK_EQ_LL(dc_reg_add(&inner), 0);
    CHECK_EQ_LL(owner_at(B + 100), -100);
    CHECK_EQ_LL(owner_at(B + 210), 8);
    CHECK_EQ_LL(dc_reg_count(), 2);
    /* a huge range over many small ones */
    dc_reg_reset();
    for (int i = 0; i < 1000; i++) {
        struct dc_alloc t = mk(B + (uintptr_t)i * 512, 256, DC_MEM_DEVICE, i % 4);
        CHECK_EQ_LL(dc_reg_add(&t), 0);
    }
    CHECK_EQ_LL(dc_reg_count(), 1000);
    struct dc_alloc huge = mk(B + 512 * 10 + 100, 512 * 500, DC_MEM_MANAGED, -1);
    CHECK_EQ_LL(dc_reg_add(&huge), 0);
    /* it overlaps the small ones 10 (partly) .. 510 (partly): 501 go */
    CHECK_EQ_LL(dc_reg_count(), 1000 - 501 + 1);
    CHECK_EQ_LL(owner_at(B + 512 * 9), 9 % 4);
    CHECK_EQ_LL(owner_at(B + 512 * 10), -100);
    CHECK_EQ_LL(owner_at(B + 512 * 10 + 100), -1);
    CHECK_EQ_LL(owner_at(B + 512 * 510 + 255), -100);
    CHECK_EQ_LL(owner_at(B + 512 * 511), 511 % 4);
    dc_reg_reset();
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_million(void)
{
    enum { N = 1000000 };
    dc_reg_reset();
    uintptr_t base = 0x10000000000ull;
    uintptr_t *bases = malloc(N * sizeof *bases);
    size_t *sizes = malloc(N * sizeof *sizes);
    CHECK(bases && sizes);
    if (!bases || !sizes)
        return;
    uint32_t rng = 12345;
    uintptr_t at = base;
    double t0 = now();
    for (int i = 0; i < N; i++) {
        rng = rng * 1664525u + 1013904223u;
        size_t size = (size_t)1 + (rng >> 8) % ((size_t)16 << (i % 13));  /* 1 B .. 64 KiB */
        at += (rng >> 28) * 8;                                            /* gaps 0..120 B */
        bases[i] = at;
        sizes[i] = size;
        struct dc_alloc a = mk(at, size, DC_MEM_DEVICE, i % 8);
        a.alloc_stack = (uint32_t)i;
        if (dc_reg_add(&a) != 0) {
            CHECK(!"dc_reg_add failed");
            break;
        }
        at += size;
    }
    double t1 = now();
    CHECK_EQ_LL(dc_reg_count(), N);
    struct dc_reg_stats st;
    dc_reg_stats(&st);
    CHECK(st.max_bucket <= 18);
    CHECK_EQ_LL(st.live, N);
    size_t max_bucket = st.max_bucket;
    int bad = 0;
    for (int i = 0; i < N; i++) {
        struct dc_alloc got;
        uintptr_t pts[3] = { bases[i], bases[i] + sizes[i] - 1, bases[i] + sizes[i] / 2 };
        for (int k = 0; k < 3; k++)
            if (dc_reg_lookup(pts[k], &got) != 0 || got.base != bases[i] || got.alloc_stack != (uint32_t)i)
                bad++;
        /* one past the end is either a gap or the next allocation */
        if (dc_reg_lookup(bases[i] + sizes[i], &got) == 0 && got.base != bases[i] + sizes[i])
            bad++;
    }
    double t2 = now();
    CHECK_EQ_LL(bad, 0);
    for (int i = 0; i < N; i++)
        if (dc_reg_remove(bases[i], NULL) != 0)
            bad++;
    double t3 = now();
    CHECK_EQ_LL(bad, 0);
    CHECK_EQ_LL(dc_reg_count(), 0);
    dc_reg_stats(&st);
    CHECK_EQ_LL(st.buckets, 0);
    printf("1M allocations: add %.2fs, 4M lookups %.2fs, remove %.2fs; max bucket %zu\n",
           t1 - t0, t2 - t1, t3 - t2, max_bucket);
    free(bases);
    free(sizes);
}

static void test_may_access(void)
{
    dc_reg_reset();
    struct dc_alloc a;
    /* device and IPC: owner, peer access, explicit grant */
    for (int k = 0; k < 2; k++) {
        enum dc_mem_kind kind = k ? DC_MEM_IPC : DC_MEM_DEVICE;
        a = mk(0x1000, 64, kind, 1);
        CHECK(dc_reg_may_access(&a, 1));
        CHECK(!dc_reg_may_access(&a, 0));
        dc_reg_set_peer(0, 1, 1);
        CHECK(dc_reg_may_access(&a, 0));
        CHECK(dc_reg_peer_enabled(0, 1));
        CHECK(!dc_reg_peer_enabled(1, 0));       /* peer access is directed */
        dc_reg_set_peer(0, 1, 0);
        CHECK(!dc_reg_may_access(&a, 0));
        a.access = DC_DEV_BIT(0);
        CHECK(dc_reg_may_access(&a, 0));
        CHECK(!dc_reg_may_access(&a, 2));
    }
    /* pool: owner, the pool's access table, grants */
    a = mk(0x1000, 64, DC_MEM_POOL, 2);
    a.pool = 0xabc;
    CHECK(dc_reg_may_access(&a, 2));
    CHECK(!dc_reg_may_access(&a, 3));
    dc_reg_pool_set_access(0xabc, 3, 1);
    CHECK(dc_reg_pool_access(0xabc) == DC_DEV_BIT(3));
    CHECK(dc_reg_may_access(&a, 3));
    CHECK(!dc_reg_may_access(&a, 0));
    dc_reg_pool_set_access(0xabc, 3, 0);
    CHECK(!dc_reg_may_access(&a, 3));
    dc_reg_set_peer(3, 2, 1);                     /* peer access does not open pools */
    CHECK(!dc_reg_may_access(&a, 3));
    dc_reg_set_peer(3, 2, 0);
    /* VMM: only what cuMemSetAccess granted, even for the backing device */
    a = mk(0x1000, 64, DC_MEM_VMM, 1);
    CHECK(!dc_reg_may_access(&a, 1));
    dc_reg_set_peer(0, 1, 1);
    CHECK(!dc_reg_may_access(&a, 0));
    dc_reg_set_peer(0, 1, 0);
    a.access = DC_DEV_BIT(1) | DC_DEV_BIT(0);
    CHECK(dc_reg_may_access(&a, 1));
    CHECK(dc_reg_may_access(&a, 0));
    /* managed, pinned, registered: everywhere; pageable: never */
    enum dc_mem_kind everywhere[] = { DC_MEM_MANAGED, DC_MEM_HOST_PINNED, DC_MEM_HOST_REGISTERED };
    for (int k = 0; k < 3; k++) {
        a = mk(0x1000, 64, everywhere[k], everywhere[k] == DC_MEM_MANAGED ? 0 : -1);
        for (int d = 0; d < 4; d++)
            CHECK(dc_reg_may_access(&a, d));
    }
    a = mk(0x1000, 64, DC_MEM_HOST_PAGEABLE, -1);
    CHECK(!dc_reg_may_access(&a, 0));
    /* out-of-range devices */
    a = mk(0x1000, 64, DC_MEM_MANAGED, 0);
    CHECK(!dc_reg_may_access(&a, -1));
    CHECK(!dc_reg_may_access(&a, DC_MAX_DEVICES));
    CHECK(!dc_reg_may_access(NULL, 0));
    dc_reg_set_peer(-1, 0, 1);
    dc_reg_set_peer(0, DC_MAX_DEVICES, 1);
    CHECK(!dc_reg_peer_enabled(-1, 0));

    /* dc_reg_set_access on the table: every overlapping allocation, only those */
    struct dc_alloc v1 = mk(0x10000, 0x1000, DC_MEM_VMM, 1), v2 = mk(0x11000, 0x1000, DC_MEM_VMM, 1),
                    v3 = mk(0x12000, 0x1000, DC_MEM_VMM, 1);
    CHECK_EQ_LL(dc_reg_add(&v1), 0);
    CHECK_EQ_LL(dc_reg_add(&v2), 0);
    CHECK_EQ_LL(dc_reg_add(&v3), 0);
    dc_reg_set_access(0x10800, 0x1000, 2, 1);     /* touches v1 and v2 */
    struct dc_alloc got;
    CHECK(dc_reg_lookup(0x10000, &got) == 0 && dc_reg_may_access(&got, 2));
    CHECK(dc_reg_lookup(0x11fff, &got) == 0 && dc_reg_may_access(&got, 2));
    CHECK(dc_reg_lookup(0x12000, &got) == 0 && !dc_reg_may_access(&got, 2));
    dc_reg_set_access(0x10000, 0x3000, 2, 0);
    CHECK(dc_reg_lookup(0x10000, &got) == 0 && !dc_reg_may_access(&got, 2));

    /* drop_ctx: only that context's allocations of the given kinds; another
     * context on the same device keeps its own */
    struct dc_alloc d1 = mk(0x20000, 64, DC_MEM_DEVICE, 5), d2 = mk(0x21000, 64, DC_MEM_POOL, 5),
                    d3 = mk(0x22000, 64, DC_MEM_DEVICE, 6), d4 = mk(0x23000, 64, DC_MEM_DEVICE, 5);
    d1.ctx = d2.ctx = 0xc1;
    d3.ctx = 0xc2;
    d4.ctx = 0xc3;                                 /* a second context on device 5 */
    dc_reg_add(&d1);
    dc_reg_add(&d2);
    dc_reg_add(&d3);
    dc_reg_add(&d4);
    CHECK_EQ_LL(dc_reg_drop_ctx(0, 1u << DC_MEM_DEVICE), 0);
    CHECK_EQ_LL(dc_reg_drop_ctx(0xc1, 1u << DC_MEM_DEVICE), 1);
    CHECK_EQ_LL(owner_at(0x20000), -100);
    CHECK_EQ_LL(owner_at(0x21000), 5);
    CHECK_EQ_LL(owner_at(0x22000), 6);
    CHECK_EQ_LL(owner_at(0x23000), 5);
    CHECK(!strcmp(dc_mem_kind_name(DC_MEM_HOST_PINNED), "pinned"));
    CHECK(!strcmp(dc_mem_kind_name(DC_MEM_HOST_PAGEABLE), "pageable"));
    dc_reg_reset();
}

/* Concurrency: writers add/look up/remove their own ranges while readers
 * look up allocations that stay live the whole time: those must always be
 * found with their owner. */
enum { THREADS = 4, OPS = 40000, STABLE = 256 };
static uintptr_t stable_base = 0x600000000000ull;
static int reader_errors[THREADS], writer_errors[THREADS];
static volatile int writers_done;

static void *writer(void *arg)
{
    int t = (int)(intptr_t)arg;
    uintptr_t base = 0x400000000000ull + ((uintptr_t)t << 36);
    for (int i = 0; i < OPS; i++) {
        uintptr_t b = base + (uintptr_t)(i % 512) * 8192;
        struct dc_alloc a = mk(b, 4096 + (size_t)(i % 7) * 100, DC_MEM_DEVICE, t);
        if (dc_reg_add(&a) != 0)
            writer_errors[t]++;
        struct dc_alloc got;
        if (dc_reg_lookup(b + 4095, &got) != 0 || got.owner != t)
            writer_errors[t]++;
        if (i % 3 == 0 && dc_reg_remove(b, NULL) != 0)
            writer_errors[t]++;
        if (i % 101 == 0)
            dc_reg_set_peer(t, (t + 1) % THREADS, i & 1);
    }
    return NULL;
}

static void *reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned i = 0;
    while (!__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE) || i < 100000) {
        unsigned k = i++ % STABLE;
        struct dc_alloc got;
        if (dc_reg_lookup(stable_base + k * 1024 + 1000, &got) != 0 || got.owner != (int)(k % 4))
            reader_errors[t]++;
        (void)dc_reg_may_access(&got, t);
    }
    return NULL;
}

static void test_concurrency(void)
{
    dc_reg_reset();
    for (unsigned k = 0; k < STABLE; k++) {
        struct dc_alloc a = mk(stable_base + k * 1024, 1024, DC_MEM_DEVICE, (int)(k % 4));
        dc_reg_add(&a);
    }
    pthread_t w[THREADS], r[THREADS];
    for (int t = 0; t < THREADS; t++) {
        pthread_create(&w[t], NULL, writer, (void *)(intptr_t)t);
        pthread_create(&r[t], NULL, reader, (void *)(intptr_t)t);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(w[t], NULL);
    __atomic_store_n(&writers_done, 1, __ATOMIC_RELEASE);
    for (int t = 0; t < THREADS; t++)
        pthread_join(r[t], NULL);
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ_LL(writer_errors[t], 0);
        CHECK_EQ_LL(reader_errors[t], 0);
    }
    struct dc_reg_stats st;
    dc_reg_stats(&st);
    CHECK(st.max_bucket <= 18);
    /* a writer's slot stays live when its last add was not followed by a remove */
    size_t live = STABLE;
    for (int slot = 0; slot < 512; slot++) {
        int last = slot + ((OPS - 1 - slot) / 512) * 512;
        if (last % 3 != 0)
            live += THREADS;
    }
    CHECK_EQ_LL(dc_reg_count(), live);
    dc_reg_reset();
}

int main(void)
{
    test_interior();
    test_reuse_and_overlap();
    test_may_access();
    test_concurrency();
    test_million();
    return unit_done("test_registry");
}
