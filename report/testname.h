/* testname: the test a finding happens in, as the test runner names it
 * (pytest's node id, set by devcheck's pytest plugin through
 * devcheck_test_begin): the JSON record's "test" and the text block's
 * "test:" line of the finding's first occurrence.  Read and written under
 * the report's lock (report/report.c). */
#ifndef DEVCHECK_REPORT_TESTNAME_H
#define DEVCHECK_REPORT_TESTNAME_H

#pragma GCC visibility push(hidden)

/* name (cut at 511 bytes), or NULL / "" for none. */
void dc_test_name_set(const char *name);
/* The current test's name; NULL when none. */
const char *dc_test_name(void);
/* The current test provokes findings of these kinds on purpose (the pytest
 * plugin's devcheck_expected marker): kinds comma-separated, "" every kind,
 * NULL none (a new test name clears it). */
void dc_test_expect_set(const char *kinds);
/* 1: a finding of `kind` now is expected: its JSON record says so and
 * error_exitcode does not count it. */
int dc_test_expects(const char *kind);

#pragma GCC visibility pop
#endif
