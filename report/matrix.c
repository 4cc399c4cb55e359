/* matrix: operand and transfer counters (see matrix.h). */
#include "report/matrix.h"
#include "report/stack.h"
#include "report/symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS (DC_MATRIX_DEVICES + 3)            /* devices, pinned, pageable, managed */
#define SITES 4096                              /* (pair, site) slots; a power of two */
#define TOP_SITES 5                             /* per pair in the summary */

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

void dc_report_count_transfer(int src, int dst, uint64_t bytes, uint32_t site)
{
    int s = col_index(src), d = col_index(dst);
    if (s < 0 || d < 0)
        return;
    uint64_t pair = (uint64_t)(s * COLS + d + 1);
    uint64_t key = pair << 32 | site;
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    for (unsigned probe = 0; probe < 2; probe++, key = pair << 32) {     /* then the pair's site-less slot */
        for (unsigned i = 0; i < 64; i++) {
            struct slot *sl = &sites[(h + i) & (SITES - 1)];
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

/* "function at file:line" of a copy's call site: its innermost frame with a
 * source file outside CUDA's libraries, else the innermost frame. */
static void site_name(uint32_t id, char *out, size_t len)
{
    static struct dc_frame fr[16];
    size_t n = id ? dc_stack_symbolize(id, fr, 16) : 0;
    snprintf(out, len, "(unknown)");
    const struct dc_frame *pick = NULL;
    for (size_t i = 0; i < n && !pick; i++) {
        const char *b = strrchr(fr[i].module, '/');
        b = b ? b + 1 : fr[i].module;
        if (fr[i].file[0] && strncmp(b, "libcudart", 9) && strncmp(b, "libcuda.", 8))
            pick = &fr[i];
    }
    if (!pick && n)
        pick = &fr[0];
    if (!pick)
        return;
    if (pick->file[0])
        snprintf(out, len, "%s at %s:%d", pick->function[0] ? pick->function : "??", pick->file, pick->line);
    else
        snprintf(out, len, "%s (%s+0x%zx)", pick->function[0] ? pick->function : "??",
                 strrchr(pick->module, '/') ? strrchr(pick->module, '/') + 1 : pick->module, (size_t)pick->offset);
}

static int by_bytes(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : (x->key > y->key) - (x->key < y->key);
}

void dc_matrix_json(struct dc_buf *b)
{
    dc_bput(b, ",\"access\":[");
    int first = 1;
    for (int d = 0; d < DC_MATRIX_DEVICES; d++)
        for (int c = 0; c < COLS; c++) {
            uint64_t n = __atomic_load_n(&operands[d][c], __ATOMIC_RELAXED);
            if (c == col_index(d))
                n += dc_report_clean_operands(d, 0);
            else if (c == col_index(DC_COL_MANAGED))
                n += dc_report_clean_operands(d, 1);
            if (!n)
                continue;
            dc_bput(b, "%s{\"launch_device\":%d,\"owner\":%d,\"operands\":%llu}", first ? "" : ",", d,
                    col_value(c), (unsigned long long)n);
            first = 0;
        }
    dc_bput(b, "],\"transfers\":[");
    /* a snapshot of the slots in use (other threads may still copy), each
     * pair's sites sorted by bytes */
    static struct slot used_slots[SITES], *used[SITES];
    size_t nused = 0;
    for (size_t i = 0; i < SITES; i++) {
        uint64_t k = __atomic_load_n(&sites[i].key, __ATOMIC_ACQUIRE);
        if (!k)
            continue;
        used_slots[nused] = (struct slot){ k, __atomic_load_n(&sites[i].calls, __ATOMIC_RELAXED),
                                           __atomic_load_n(&sites[i].bytes, __ATOMIC_RELAXED) };
        nused++;
    }
    qsort(used_slots, nused, sizeof *used_slots, by_bytes);
    for (size_t i = 0; i < nused; i++)
        used[i] = &used_slots[i];
    first = 1;
    for (int s = 0; s < COLS; s++)
        for (int d = 0; d < COLS; d++) {
            uint64_t pair = (uint64_t)(s * COLS + d + 1), calls = 0, bytes = 0;
            for (size_t i = 0; i < nused; i++)
                if (used[i]->key >> 32 == pair)
                    calls += used[i]->calls, bytes += used[i]->bytes;
            if (!calls)
                continue;
            dc_bput(b, "%s{\"src\":%d,\"dst\":%d,\"calls\":%llu,\"bytes\":%llu,\"sites\":[", first ? "" : ",",
                    col_value(s), col_value(d), (unsigned long long)calls, (unsigned long long)bytes);
            first = 0;
            int shown = 0;
            for (size_t i = 0; i < nused && shown < TOP_SITES; i++) {
                if (used[i]->key >> 32 != pair)
                    continue;
                char name[1200];
                site_name((uint32_t)used[i]->key, name, sizeof name);
                dc_bput(b, "%s{\"site\":", shown ? "," : "");
                dc_bjson_str(b, name);
                dc_bput(b, ",\"calls\":%llu,\"bytes\":%llu}", (unsigned long long)used[i]->calls,
                        (unsigned long long)used[i]->bytes);
                shown++;
            }
            dc_bput(b, "]}");
        }
    dc_bput(b, "]");
}
