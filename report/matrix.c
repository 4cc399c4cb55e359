/* matrix: operand and transfer counters (see matrix.h). */
#include "report/matrix.h"

#include <stdlib.h>
#include <string.h>

#define COLS DC_MATRIX_COLS
#define SITES DC_MATRIX_SITES

static uint64_t operands[DC_MATRIX_DEVICES][COLS];     /* atomics */
static uint64_t quiet;                                  /* atomic */

struct slot {
    uint64_t key;               /* 0: free; else pair << 32 | site, claimed with a CAS */
    uint64_t calls, bytes;      /* atomics */
};
static struct slot sites[SITES];

static int col_index(int c)
{
    if (c >= 0 && c < DC_MATRIX_DEVICES)
        return c;
    if (c == DC_COL_PINNED)
        return DC_MATRIX_DEVICES;
    if (c == DC_COL_PAGEABLE)
        return DC_MATRIX_DEVICES + 1;
    if (c == DC_COL_MANAGED)
        return DC_MATRIX_DEVICES + 2;
    return -1;
}

static int col_value(int i)
{
    return i < DC_MATRIX_DEVICES ? i : i == DC_MATRIX_DEVICES ? DC_COL_PINNED
         : i == DC_MATRIX_DEVICES + 1 ? DC_COL_PAGEABLE : DC_COL_MANAGED;
}

void dc_report_count_operands(int device, int owner, uint64_t n)
{
    int c = col_index(owner);
    if (device < 0 || device >= DC_MATRIX_DEVICES || c < 0)
        return;
    __atomic_fetch_add(&operands[device][c], n, __ATOMIC_RELAXED);
}

void dc_report_count_operand(int device, int owner) { dc_report_count_operands(device, owner, 1); }

void dc_report_count_quiet(void) { __atomic_fetch_add(&quiet, 1, __ATOMIC_RELAXED); }
uint64_t dc_report_quiet_operands(void) { return __atomic_load_n(&quiet, __ATOMIC_RELAXED); }

/* Each thread's last copy key and the slot that counted it (checked
 * again before use: a reset frees every slot), so that a copy in a loop
 * hashes and probes nothing. */
static __thread struct {
    uint64_t key, slot_key;
    struct slot *sl;
} last_site __attribute__((tls_model("initial-exec")));

void dc_report_count_transfer(int src, int dst, uint64_t bytes, uint32_t site)
{
    int s = col_index(src), d = col_index(dst);
    if (s < 0 || d < 0)
        return;
    uint64_t pair = (uint64_t)(s * COLS + d + 1);
    uint64_t key = pair << 32 | site, want = key;
    struct slot *sl = last_site.sl;
    if (sl && last_site.key == key && __atomic_load_n(&sl->key, __ATOMIC_ACQUIRE) == last_site.slot_key) {
        __atomic_fetch_add(&sl->calls, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&sl->bytes, bytes, __ATOMIC_RELAXED);
        return;
    }
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < 2; probe++, key = pair << 32) {     /* then the pair's site-less slot */
        for (unsigned i = 0; i < 64; i++) {
            sl = &sites[(h + i) & (SITES - 1)];
            uint64_t k = __atomic_load_n(&sl->key, __ATOMIC_ACQUIRE);
            if (!k) {
                uint64_t zero = 0;
                if (__atomic_compare_exchange_n(&sl->key, &zero, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                    k = key;
                else
                    k = zero;
            }
            if (k == key) {
                __atomic_fetch_add(&sl->calls, 1, __ATOMIC_RELAXED);
                __atomic_fetch_add(&sl->bytes, bytes, __ATOMIC_RELAXED);
                last_site.key = want;
                last_site.slot_key = key;
                last_site.sl = sl;
                return;
            }
        }
        h = (pair << 32) * 0x9e3779b97f4a7c15ull;
    }
}

void dc_matrix_reset(void)
{
    memset(operands, 0, sizeof operands);
    memset(sites, 0, sizeof sites);
    __atomic_store_n(&quiet, 0, __ATOMIC_RELAXED);
}

static uint64_t copy_key(const struct dc_matrix_copy *c)
{
    return (uint64_t)(c->src * COLS + c->dst + 1) << 32 | c->site;
}

/* Most bytes first, then by (pair, site): the order of the slots' keys. */
static int by_bytes(const void *a, const void *b)
{
    const struct dc_matrix_copy *x = a, *y = b;
    uint64_t kx = copy_key(x), ky = copy_key(y);
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (kx > ky) - (kx < ky);
}

int dc_matrix_col(int i) { return col_value(i); }
int dc_matrix_index(int col) { return col_index(col); }

uint64_t dc_matrix_operands(int device, int i)
{
    if (device < 0 || device >= DC_MATRIX_DEVICES || i < 0 || i >= COLS)
        return 0;
    return __atomic_load_n(&operands[device][i], __ATOMIC_RELAXED);
}

size_t dc_matrix_copies(struct dc_matrix_copy *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < SITES && n < max; i++) {
        uint64_t k = __atomic_load_n(&sites[i].key, __ATOMIC_ACQUIRE);
        if (!k)
            continue;
        uint32_t pair = (uint32_t)(k >> 32) - 1;
        out[n++] = (struct dc_matrix_copy){ (int)(pair / COLS), (int)(pair % COLS), (uint32_t)k,
                                            __atomic_load_n(&sites[i].calls, __ATOMIC_RELAXED),
                                            __atomic_load_n(&sites[i].bytes, __ATOMIC_RELAXED) };
    }
    qsort(out, n, sizeof *out, by_bytes);
    return n;
}
