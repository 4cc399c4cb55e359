/* store: the findings of this process, each kept once.  Which finding is
 * new and which a repeat (the key below), how often each was seen, its
 * number, the JSON line its first occurrence was written as (so the exit
 * can write it again with the final count), and the summary's finding
 * counters: unique findings by severity, kernels and library calls with
 * findings, suppressed occurrences, findings not recorded.
 *
 * A finding is identified by (kind, kernel, parameter, word, allocation
 * stack, launch stack, action); unchecked_kernel by its kernel alone; legal
 * peer traffic (key_pair) by (kind, kernel, parameter, word, device pair).  The
 * store keeps at most 100,000 findings; beyond that, or without memory, a
 * new finding is only counted as not recorded.
 *
 * Not locked itself: every call but dc_store_errors, dc_store_count_repeat
 * and dc_store_generation is made under the report's lock
 * (report/report.c), which also covers the formatting of a new finding
 * between dc_store_add and dc_store_keep_json.  A record, once its lookup
 * has returned it, stays valid until dc_store_reset (which bumps
 * dc_store_generation): a thread may keep it and count its repeats without
 * the lock (dc_store_count_repeat), which is how a repeated finding costs
 * no lock at all (report.c's per-thread memo). */
#ifndef DEVCHECK_REPORT_STORE_H
#define DEVCHECK_REPORT_STORE_H
#include <stddef.h>
#include <stdint.h>
#include "report/finding.h"
#include "report/summary.h"

#pragma GCC visibility push(hidden)

/* The dedup key of a finding (compared bytewise: dc_store_key zeroes it first). */
struct dc_store_key {
    uint32_t kind;
    int32_t param;
    uint64_t kernel;            /* FNV-1a of the kernel name (or its key) */
    uint32_t word_offset;
    uint32_t alloc_stack;
    uint32_t launch_stack;
    uint32_t action;            /* enum dc_action */
    uint32_t pair;              /* a legal peer access's device pair (report/finding.h key_pair), 0 */
};
/* One finding kept. */
struct dc_stored;

/* f's key.  No lock needed. */
void dc_store_key(const struct dc_finding *f, struct dc_store_key *key);
/* The record of `key` when it is a finding already kept: one more
 * occurrence counted (and its suppression's, when one matched it); else
 * NULL. */
struct dc_stored *dc_store_repeat(const struct dc_store_key *key);
/* One more occurrence of r (a record a lookup returned in this
 * generation), and of its suppression's: atomics only, no lock needed. */
void dc_store_count_repeat(struct dc_stored *r);
/* The store's generation: records of an older one may be gone.  Atomic. */
uint64_t dc_store_generation(void);
/* Occurrences beyond the first of the findings kept and not suppressed
 * (--stats' "repeated"). */
uint64_t dc_store_repeats(void);
/* Bytes the store holds (records, kernels, JSON lines): --stats. */
size_t dc_store_bytes(void);
/* Keeps a new finding (not a repeat: dc_store_repeat said 0) of severity
 * `sev`, seen once, not numbered yet; a later repeat finds it.  NULL when it
 * cannot be kept (the store is full, no memory): then counted as not
 * recorded. */
struct dc_stored *dc_store_add(const struct dc_store_key *key, enum dc_severity sev);
/* r matched suppression `supp` (report/suppress.h): counted as suppressed,
 * and so are its repeats; it is never numbered. */
void dc_store_suppress(struct dc_stored *r, int supp);
/* r, finding f, is reported: numbered (the next id, from 1), counted by its
 * severity and under its kernel (or library call: f->argument) unless a
 * framework error (no kernel ran).  Returns the id. */
/* expected: the running test provokes f on purpose (report/testname.h):
 * counted apart, not among the errors error_exitcode counts. */
uint64_t dc_store_number(struct dc_stored *r, const struct dc_finding *f, int expected);
/* Keeps r's JSON line (line[0 .. len), whose count value "1" starts at
 * count_at) for the exit; without memory it is not kept. */
void dc_store_keep_json(struct dc_stored *r, const char *line, size_t count_at);

/* The numbered findings in id order: dc_store_next(NULL) is the first;
 * NULL after the last. */
const struct dc_stored *dc_store_next(const struct dc_stored *r);
/* r's count so far, and its JSON line around the count: head up to
 * "count":, tail after the value, with the newline (both NULL when none
 * was kept). */
uint64_t dc_store_line(const struct dc_stored *r, const char **head, const char **tail);

/* Windows of occurrences (a test of the pytest plugin, report.h's
 * dc_report_test_begin): a new window opens; each occurrence counts in the
 * window it happens in.  dc_store_window_count: r's occurrences in the
 * current window (0: none since it opened). */
void dc_store_window_open(void);
uint64_t dc_store_window_count(const struct dc_stored *r);

/* The finding counters into s: findings, errors, warnings, infos, kernels,
 * calls, dropped, suppressed (the other fields untouched). */
void dc_store_stats(struct dc_report_stats *s);
/* Error-severity findings so far (unique).  Atomic: no lock needed. */
unsigned long dc_store_errors(void);
/* Forgets every finding and counter (a fork child, tests). */
void dc_store_reset(void);

#pragma GCC visibility pop
#endif
