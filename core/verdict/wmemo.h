/* wmemo: the thread's memo of plan words that repeat a finding (issue 38).
 *
 * A word of a kernel's plan that made exactly one finding, a repeat, makes
 * the same one again while nothing its verdict rests on has changed: the
 * kernel (its key and the kernels' generation), the plan word, the value,
 * the launch device, and the registry's generation (every allocation, free,
 * peer and pool access change bumps it; the options do not change after
 * the start).  Its store key then differs only by the launch stack, so the
 * check (core/verdict/check.c plan_word_check) proves the stack and, when
 * it is the stack of before, counts the record (dc_report_repeat_ref) and
 * the access matrix's operand: no registry lookup, no finding, no key.
 * Legal peer traffic (peer_access, a warning: report/finding.h key_pair) is
 * kept by its pair instead: v = DC_WMEMO_PEER(owner), reg_gen 0, stack 0:
 * the caller has just found the word's memory to be the owner's and
 * accessible (a registry lookup, the thread's cache), and the record's key
 * has no stack, so nothing is proven and no value is kept (a loop's new
 * tensors at new addresses hit it too).
 * Per thread, no lock: 16 sets of 4 ways, a word's set by its plan word and
 * value, the way used longest ago replaced. */
#ifndef DEVCHECK_CORE_VERDICT_WMEMO_H
#define DEVCHECK_CORE_VERDICT_WMEMO_H
#include <stddef.h>
#include <stdint.h>
#include "report/finding.h"

#pragma GCC visibility push(hidden)

struct dc_pword;
/* the v of a legal peer entry: no word's value (the last page of the address space) */
#define DC_WMEMO_PEER(owner) (~(uintptr_t)0 - (uintptr_t)(owner))
struct dc_wmemo {
    const void *kernel_key;
    const struct dc_pword *pw;
    uintptr_t v;
    uint64_t reg_gen, kernels_gen;
    int device;
    int col;                    /* the operand's access-matrix column (report/matrix.h) */
    int error;                  /* 1: the finding is an error */
    uint32_t stack;             /* its launch stack */
    uint64_t used;              /* the thread's tick at its last find or put */
    struct dc_report_ref ref;   /* its record */
};

/* This thread's entry of (kernel_key, pw, v, device) kept at generations
 * (reg_gen, kernels_gen), or NULL. */
const struct dc_wmemo *dc_wmemo_find(const void *kernel_key, const struct dc_pword *pw, uintptr_t v, int device,
                                     uint64_t reg_gen, uint64_t kernels_gen);
/* Keeps a copy of e (used is set here) for this thread. */
void dc_wmemo_put(const struct dc_wmemo *e);
/* The set (0 .. 15) of 4 ways that (pw, v) lives in. */
size_t dc_wmemo_set(const struct dc_pword *pw, uintptr_t v);

#pragma GCC visibility pop
#endif
