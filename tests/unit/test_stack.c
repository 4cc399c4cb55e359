/* Unit tests of the stack capture (report/stack.c) and its per-thread cache
 * of recent stacks: a capture repeated from the same place gives the same
 * id, and one from another place never gets the id the cache holds for
 * the stack captured before -- even when everything the cache compares
 * first is the same:
 *  - two callers with the same frame size, called through one function
 *    pointer from one call site (same depth, same stack addresses, one
 *    return address differs);
 *  - two frame-pointer frames (alloca) whose sizes add up to the same depth,
 *    so the innermost frames sit at the same addresses and the stale
 *    return address of the last capture is still in the alloca'd memory
 *    above them (only the saved frame pointer tells them apart);
 *  - different depths of recursion; another thread.
 * Each id is checked against the stack's own symbolization (the function
 * names in it). */
#include "report/stack.h"
#include "report/symbolize.h"
#include "tests/unit/unit.h"

#include <alloca.h>
#include <pthread.h>
#include <string.h>

/* Captures per pair of places: enough for the cache to take both in (a
 * stack is cached when seen again, at most once per 64 captures). */
#define ROUNDS 400

/* The empty asm after each call keeps it from becoming a tail call. */
#define NOTAIL() __asm__ volatile("" ::: "memory")

__attribute__((noipa)) static uint32_t leaf(void)
{
    uint32_t id = dc_stack_capture(0);
    NOTAIL();
    return id;
}

#define SAME_FRAME(name)                                \
    __attribute__((noipa)) static uint32_t name(void)   \
    {                                                   \
        uint32_t id = leaf();                           \
        NOTAIL();                                       \
        return id;                                      \
    }
SAME_FRAME(path_a)
SAME_FRAME(path_b)

/* A frame sized at run time: alloca(n) (not touched but for its first
 * byte, so a stale return address above it survives). */
__attribute__((noipa)) static uint32_t sized(size_t n)
{
    volatile char *p = alloca(n);
    p[0] = 0;
    uint32_t id = leaf();
    NOTAIL();
    return id;
}

#define SIZED_CALLER(name)                                      \
    __attribute__((noipa)) static uint32_t name(size_t a, size_t b) \
    {                                                           \
        volatile char *p = alloca(a);                           \
        p[0] = 0;                                               \
        uint32_t id = sized(b);                                 \
        NOTAIL();                                               \
        return id;                                              \
    }
SIZED_CALLER(sized_x)
SIZED_CALLER(sized_y)

__attribute__((noipa)) static uint32_t deep(int n)
{
    uint32_t id = n ? deep(n - 1) : leaf();
    NOTAIL();
    return id;
}

/* 1 when the stack's symbolized frames name fn (and not not_fn). */
static int names(uint32_t id, const char *fn, const char *not_fn)
{
    static struct dc_frame f[DC_FRAMES_MAX];
    size_t n = dc_stack_symbolize(id, f, DC_FRAMES_MAX);
    int has = 0, has_not = 0;
    for (size_t i = 0; i < n; i++) {
        has |= !strcmp(f[i].function, fn);
        has_not |= not_fn && !strcmp(f[i].function, not_fn);
    }
    return has && !has_not;
}

/* One call site for both functions of each pair: no branch in these, so
 * the compiler has no reason to copy the call. */
__attribute__((noipa)) static uint32_t call_path(uint32_t (*fn)(void))
{
    uint32_t id = fn();
    NOTAIL();
    return id;
}

__attribute__((noipa)) static uint32_t call_sized(uint32_t (*fn)(size_t, size_t), size_t outer, size_t inner)
{
    uint32_t id = fn(outer, inner);
    NOTAIL();
    return id;
}

static void *thread_main(void *arg)
{
    *(uint32_t *)arg = path_a();
    return NULL;
}

int main(void)
{
    /* one call site, two callers of the same frame size, in turn */
    uint32_t ids[ROUNDS];
    for (int i = 0; i < ROUNDS; i++)
        ids[i] = call_path(i % 2 ? path_b : path_a);
    uint32_t a = ids[0], b = ids[1];
    for (int i = 0; i < ROUNDS; i++)
        CHECK_EQ_LL(ids[i], ids[i % 2]);
    CHECK(a != 0 && b != 0 && a != b);
    CHECK(names(a, "path_a", "path_b"));
    CHECK(names(b, "path_b", "path_a"));

    /* frame-pointer frames whose sizes add up to the same depth */
    for (int i = 0; i < ROUNDS; i++)
        ids[i] = call_sized(i % 2 ? sized_y : sized_x, i % 2 ? 1024 : 64, i % 2 ? 64 : 1024);
    uint32_t x = ids[0], y = ids[1];
    for (int i = 0; i < ROUNDS; i++)
        CHECK_EQ_LL(ids[i], ids[i % 2]);
    CHECK(x != 0 && y != 0 && x != y);
    CHECK(names(x, "sized_x", "sized_y"));
    CHECK(names(y, "sized_y", "sized_x"));

    /* depths */
    uint32_t d[4];
    for (int r = 0; r < ROUNDS / 4; r++)
        for (int k = 0; k < 4; k++) {
            uint32_t id = deep(k);
            NOTAIL();
            if (!r)
                d[k] = id;
            CHECK_EQ_LL(id, d[k]);
        }
    for (int k = 1; k < 4; k++)
        CHECK(d[k] != d[k - 1]);

    /* another thread: its own stack (no main in it) */
    uint32_t t = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_main, &t) == 0);
    pthread_join(th, NULL);
    CHECK(t != 0 && t != a);
    CHECK(names(t, "thread_main", "main"));
    CHECK(names(a, "main", "thread_main"));
    return unit_done("test_stack");
}
