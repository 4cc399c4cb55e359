/* Unit tests for core/owner/blocks.c: a finding's view names the caching
 * allocator's block holding an address (its base, size and stack), inside
 * its segment only; a block taken back, or one whose segment was freed and
 * whose address came back in another allocation, is never named; the table
 * grows and deletes (backward shift) like a model of it; threads add and
 * remove while another views. */
#include "core/owner/blocks.h"
#include "core/owner/registry.h"
#include "tests/unit/unit.h"

#include <pthread.h>
#include <stdint.h>

static struct dc_alloc seg_at(uintptr_t base, size_t size, int owner)
{
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = size;
    a.kind = DC_MEM_DEVICE;
    a.owner = owner;
    a.alloc_stack = 7;
    CHECK_EQ_LL(dc_reg_add(&a), 0);
    CHECK_EQ_LL(dc_reg_lookup(base, &a), 0);        /* with its serial */
    return a;
}

/* The view of addr in segment s: 1 when a block named it. */
static int view(const struct dc_alloc *s, uintptr_t addr, struct dc_finding_alloc *out)
{
    memset(out, 0, sizeof *out);
    out->base = s->base;
    out->size = s->size;
    out->kind = s->kind;
    out->owner = s->owner;
    out->alloc_stack = s->alloc_stack;
    return dc_block_view(out, s, addr);
}

static void test_view(void)
{
    dc_reg_reset();
    dc_block_reset();
    const uintptr_t S = 0x7f0000000000ull;
    struct dc_alloc s = seg_at(S, 2 << 20, 1);
    uint64_t serial = dc_block_holder(S + 512, 1024);
    CHECK(serial != 0);
    CHECK_EQ_LL(dc_block_holder(S + (2 << 20) - 512, 1024), 0);      /* past the segment's end */
    CHECK_EQ_LL(dc_block_holder(S - 4096, 512), 0);                   /* not devcheck's memory */
    dc_block_add(S, 512, serial, 11);
    dc_block_add(S + 512, 1024, serial, 12);
    CHECK_EQ_LL(dc_block_count(), 2);
    struct dc_finding_alloc v;
    CHECK_EQ_LL(view(&s, S + 512, &v), 1);                            /* a block's base */
    CHECK_EQ_LL(v.base, S + 512);
    CHECK_EQ_LL(v.size, 1024);
    CHECK_EQ_LL(v.alloc_stack, 12);
    CHECK_EQ_LL(v.segment_base, S);
    CHECK_EQ_LL(v.segment_size, 2 << 20);
    CHECK_EQ_LL(v.owner, 1);
    CHECK_EQ_LL(view(&s, S + 512 + 1000, &v), 1);                     /* inside it */
    CHECK_EQ_LL(v.base, S + 512);
    CHECK_EQ_LL(view(&s, S + 1536, &v), 0);                           /* a free part of the segment */
    CHECK_EQ_LL(v.base, S);
    CHECK_EQ_LL(v.alloc_stack, 7);
    CHECK_EQ_LL(v.segment_size, 0);
    dc_block_remove(S + 512);
    CHECK_EQ_LL(dc_block_count(), 1);
    CHECK_EQ_LL(view(&s, S + 600, &v), 0);                            /* taken back */
    dc_block_remove(S + 512);                                         /* twice: nothing */
    CHECK_EQ_LL(dc_block_count(), 1);
    /* the segment freed behind the blocks' back, its address reused: the
     * old block names nothing in the new allocation */
    CHECK_EQ_LL(dc_reg_remove(S, NULL), 0);
    struct dc_alloc s2 = seg_at(S, 1 << 20, 2);
    CHECK(s2.serial != s.serial);
    CHECK_EQ_LL(view(&s2, S + 10, &v), 0);
    CHECK_EQ_LL(v.base, S);
    CHECK_EQ_LL(v.owner, 2);
}

/* Expandable segments: pages mapped one handle at a time, a block over
 * several of them. */
static void test_pages(void)
{
    dc_reg_reset();
    dc_block_reset();
    const uintptr_t P = 0x7d0000000000ull, PAGE = 2 << 20;
    struct dc_alloc p0 = seg_at(P, PAGE, 3), p1 = seg_at(P + PAGE, PAGE, 3);
    (void)seg_at(P + 3 * PAGE, PAGE, 3);                  /* after a gap */
    (void)p0;
    uint64_t serial = dc_block_holder(P + PAGE / 2, PAGE);
    CHECK_EQ_LL(serial, p0.serial);
    CHECK_EQ_LL(dc_block_holder(P + PAGE + 512, 2 * PAGE), 0);       /* over the gap: not kept */
    dc_block_add(P + PAGE / 2, PAGE, serial, 21);
    struct dc_finding_alloc v;
    CHECK_EQ_LL(view(&p1, P + PAGE + 100, &v), 1);                    /* in the second page */
    CHECK_EQ_LL(v.base, P + PAGE / 2);
    CHECK_EQ_LL(v.size, PAGE);
    CHECK_EQ_LL(v.alloc_stack, 21);
    CHECK_EQ_LL(v.segment_base, P);                                   /* the page holding its base */
    CHECK_EQ_LL(v.segment_size, PAGE);
    CHECK_EQ_LL(view(&p1, P + PAGE + PAGE / 2, &v), 0);               /* past its end */
    CHECK_EQ_LL(dc_reg_remove(P, NULL), 0);                           /* its first page unmapped */
    CHECK_EQ_LL(view(&p1, P + PAGE + 100, &v), 0);
}

/* Many blocks added and removed in a pseudo-random order against a model:
 * growth and the backward-shift deletion keep every live block findable. */
static void test_model(void)
{
    dc_reg_reset();
    dc_block_reset();
    const uintptr_t S = 0x7e0000000000ull;
    enum { N = 20000 };
    struct dc_alloc s = seg_at(S, (size_t)N * 512, 0);
    static unsigned char live[N];
    memset(live, 0, sizeof live);
    uint64_t x = 88172645463325252ull;
    size_t nlive = 0;
    for (int step = 0; step < 200000; step++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t k = (size_t)(x % N);
        uintptr_t b = S + k * 512;
        if (live[k]) {
            dc_block_remove(b);
            live[k] = 0;
            nlive--;
        } else {
            dc_block_add(b, 512, dc_block_holder(b, 512), (uint32_t)k + 1);
            live[k] = 1;
            nlive++;
        }
    }
    CHECK_EQ_LL(dc_block_count(), nlive);
    size_t wrong = 0;
    for (size_t k = 0; k < N; k++) {
        struct dc_finding_alloc v;
        int got = view(&s, S + k * 512 + 100, &v);
        if (got != live[k] || (got && (v.base != S + k * 512 || v.alloc_stack != k + 1)))
            wrong++;
    }
    CHECK_EQ_LL(wrong, 0);
}

/* Threads handing out and taking back blocks of one segment while another
 * views them (ThreadSanitizer's run checks the locking). */
enum { THREADS = 4, PER = 2000 };
static const uintptr_t TS = 0x7c0000000000ull;
static struct dc_alloc tseg;

static void *churn(void *arg)
{
    uintptr_t first = TS + (uintptr_t)(size_t)arg * PER * 512;
    for (int round = 0; round < 5; round++)
        for (int i = 0; i < PER; i++) {
            uintptr_t b = first + (uintptr_t)i * 512;
            if (round % 2 == 0)
                dc_block_add(b, 512, dc_block_holder(b, 512), (uint32_t)i + 1);
            else
                dc_block_remove(b);
        }
    return NULL;
}

static void *viewer(void *arg)
{
    (void)arg;
    long named = 0;
    for (int i = 0; i < 20000; i++) {
        struct dc_finding_alloc v;
        uintptr_t a = TS + (uintptr_t)(i % (THREADS * PER)) * 512 + 8;
        if (view(&tseg, a, &v) && (v.base != a - 8 || v.size != 512))
            named = -1000000;
        named += v.segment_size != 0;
    }
    return (void *)(intptr_t)(named >= 0);
}

static void test_threads(void)
{
    dc_reg_reset();
    dc_block_reset();
    tseg = seg_at(TS, (size_t)THREADS * PER * 512, 0);
    pthread_t t[THREADS], v;
    void *ok = NULL;
    CHECK_EQ_LL(pthread_create(&v, NULL, viewer, NULL), 0);
    for (long i = 0; i < THREADS; i++)
        CHECK_EQ_LL(pthread_create(&t[i], NULL, churn, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_join(v, &ok);
    CHECK(ok != NULL);                          /* every block named was the right one */
    CHECK_EQ_LL(dc_block_count(), THREADS * PER);   /* rounds 0, 2, 4 added */
}

int main(void)
{
    test_view();
    test_pages();
    test_model();
    test_threads();
    return unit_done("blocks");
}
