/* matrix: the counters behind the HTML report's two matrices, which the
 * JSON summary gives ("access", "transfers"; report/FORMAT.md, written by
 * report/jsonl.c):
 *  - operands checked per (launch device, owner): each word of a launch
 *    that pointed into known memory or host memory;
 *  - copies per (source, destination, call site): calls and bytes.
 * Owners and copy ends: a device 0..63, or DC_COL_PINNED (pinned or
 * registered host memory), DC_COL_PAGEABLE (pageable host memory),
 * DC_COL_MANAGED.  O(1) per event and lock-free: fixed arrays of atomics,
 * and an open-addressed table of (pair, call site) keys claimed with a
 * compare-and-swap; when it is full a copy is counted under its pair with
 * no site. */
#ifndef DEVCHECK_REPORT_MATRIX_H
#define DEVCHECK_REPORT_MATRIX_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define DC_COL_PINNED   (-1)
#define DC_COL_PAGEABLE (-2)
#define DC_COL_MANAGED  (-3)
#define DC_MATRIX_DEVICES 64
#define DC_MATRIX_COLS (DC_MATRIX_DEVICES + 3)  /* the columns: each device, pinned, pageable, managed */
#define DC_MATRIX_SITES 4096                    /* (pair, call site) slots; a power of two */

/* An operand of a launch on `device` pointing into memory of column `owner`. */
void dc_report_count_operand(int device, int owner);
/* n of them at once (the check counts a launch's clean operands together). */
void dc_report_count_operands(int device, int owner, uint64_t n);
/* An operand the check counted (above) but reports no finding for by the
 * rules of what a word of its kernel proves (a closed library's kernel
 * handed host memory, a framework's kernel reading pinned host memory:
 * report/FORMAT.md); the summary's quiet_operands. */
void dc_report_count_quiet(void);
uint64_t dc_report_quiet_operands(void);
/* A copy of `bytes` from column src to column dst, at call site `site` (a
 * dc_stack id of the copying call; 0 if none). */
void dc_report_count_transfer(int src, int dst, uint64_t bytes, uint32_t site);

/* Reading the counters (the JSON summary).  Column i (0 .. DC_MATRIX_COLS)
 * is owner or copy end dc_matrix_col(i); dc_matrix_index is the inverse (-1:
 * not a column). */
int dc_matrix_col(int i);
int dc_matrix_index(int col);
/* Operands of launches on `device` counted into column i (the clean ones a
 * launch counts per thread are not among them: dc_report_clean_operands). */
uint64_t dc_matrix_operands(int device, int i);
/* One (source, destination, call site) of the copies: columns, the site's
 * dc_stack id (0: none), calls and bytes. */
struct dc_matrix_copy {
    int src, dst;
    uint32_t site;
    uint64_t calls, bytes;
};
/* A snapshot of the copies counted (other threads may still copy), at most
 * max, most bytes first; returns the count. */
size_t dc_matrix_copies(struct dc_matrix_copy *out, size_t max);
/* Forget everything (a fork child, tests). */
void dc_matrix_reset(void);

#pragma GCC visibility pop
#endif
