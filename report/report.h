/* report: what the rest of devcheck asks of the report (report/report.c,
 * the orchestrator): its configuration and the sinks it opens, the exit
 * (count updates, summary, documents), the error count for the exit status.
 * Findings enter through report/finding.h and leave as deduplicated
 * (report/store.h), symbolized reports on stderr/log_path, JSON Lines
 * (json_path), and the exit summary.  Thread-safe; formats into fixed
 * buffers and writes each record with one write().  A child after fork
 * starts with an empty report, and sinks whose path holds %p are reopened
 * under the child's pid.  The bottom layer of devcheck: report/ includes and
 * calls nothing of the tool but common/. */
#ifndef DEVCHECK_REPORT_H
#define DEVCHECK_REPORT_H
#include <stddef.h>
#include <stdint.h>
#include "report/log.h"               /* dc_log, dc_logv: every folder logs */
#include "report/summary.h"           /* struct dc_report_stats */

/* How halt_on_error stops the program (the option `halt`). */
enum dc_halt { DC_HALT_ABORT = 0, DC_HALT_TRAP };
const char *dc_halt_name(enum dc_halt h);           /* "abort", "trap" */

/* What the report is told at dc_report_init (the core fills it from the
 * options: core/lifecycle.c). */
struct dc_report_config {
    const char *log_path;       /* reports to this file (%p: the pid); NULL or "": stderr */
    const char *json_path;      /* JSON Lines to this file (%p: the pid); NULL or "": none */
    int print_limit;            /* text reports printed at most; <= 0: unlimited */
    int verbosity;              /* dc_logv prints levels up to this */
    int halt_on_error;          /* stop at the first error finding ... */
    enum dc_halt halt;          /* ... this way */
    int off;                    /* mode=off: dc_report_finish prints nothing */
    int migrate;                /* mode=migrate: the summary line gives the bytes migrated */
    int debuginfod;             /* symbolization may ask debuginfod servers (else local files only) */
    /* What can be checked on the driver: one sentence, printed just before
     * the SUMMARY line (NULL: none); the driver's CUDA version (13000) and
     * whether it gives parameter layouts, for the JSON summary. */
    const char *driver_note;
    int driver_version;
    int driver_layouts;
    /* issue 14: CI outputs (NULL or "": none; %p %r %h %q{VAR} expanded) */
    const char *sarif_path;     /* SARIF 2.1.0, written at exit */
    const char *junit_path;     /* JUnit XML, written at exit */
    const char *html_path;      /* the HTML report, written at exit */
    const char *source_root;    /* SARIF paths relative to this (NULL: the working directory) */
    const char *suppressions;   /* comma-separated suppression files (loaded by dc_report_init) */
    int gen_suppressions;       /* print a suppression entry under each report */
    const char *library_roots;  /* comma-separated folders of Python libraries (report/pystack.h) */
    /* The wrapper's directory: each process's JSON Lines also go to
     * TREE_DIR/<pid>.<n>.jsonl; the wrapper prints the one summary of the
     * process tree and writes the documents, so the process prints no
     * SUMMARY line and writes no SARIF/JUnit/HTML of its own. */
    const char *tree_dir;
};

/* Takes the configuration (the paths are copied) and opens the sinks it
 * names.  An unwritable path gives one line on stderr and falls back to
 * stderr (log) or no JSON; never fails.  Sinks already open stay as they
 * are (dc_report_reset closes them).  Also installs the report's fork
 * handlers.  Reporting before dc_report_init() opens the sinks itself on
 * first use, with the options' defaults (stderr, no JSON, print_limit 100). */
void dc_report_init(const struct dc_report_config *cfg);
/* Before main (the start-up's constructor): the first devcheck process of
 * a process tree truncates the shared log and JSON files its children will
 * append to (report/sinks.h, dc_sinks_claim_root). */
void dc_report_prestart(const char *log_path, const char *json_path);
/* Loads the suppression files (comma-separated) for dc_report_init to use.
 * 0, or -1 with one line naming the file and line in err. */
int dc_report_check_suppressions(const char *files, char *err, size_t errlen);
/* Writes the JSON count updates and the summary object, the documents
 * (SARIF, JUnit, HTML), the suppressions used and `devcheck: SUMMARY: ...`,
 * closes the sinks.  Idempotent.  With cfg.off it prints nothing. */
void dc_report_finish(void);
/* dc_report_finish from a handler of a fatal signal: takes no lock it
 * cannot get within a bounded wait (a thread interrupted while reporting
 * holds it), writes what it can.  fault: a synchronous fault (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE) that may have struck inside malloc: nothing is
 * allocated, so the SARIF, JUnit and HTML files are not written. */
void dc_report_finish_signal(int fault);
/* Error-severity findings so far (unique findings, for error_exitcode). */
unsigned long dc_report_error_count(void);
/* The counters behind the summary line (tests, the wrapper). */
void dc_report_stats(struct dc_report_stats *s);

/* The pytest plugin (packaging/python/devcheck/pytest_plugin.py, through
 * devcheck_test_begin / devcheck_test_findings, preload/python.c): a test
 * named `name` (pytest's node id; NULL or "" between tests) begins: a new
 * window of occurrences opens, and a finding first seen in it carries the
 * name ("test" in its JSON record, "test:" in its text block). */
void dc_report_test_begin(const char *name);
/* The test that began provokes findings of `kinds` on purpose (its
 * devcheck_expected marker: comma-separated, "" every kind): each such
 * finding's record says "expected", and error_exitcode does not count it. */
void dc_report_test_expect(const char *kinds);
/* The findings that occurred in the current window, as merged JSON Lines
 * with their "headline" and "report" (report/merge.h, dc_model_jsonl_text),
 * each "count" the occurrences in the window; into out when it fits
 * (terminated), and returns the length it needs (0: none; call again with
 * more than that room when it did not fit). */
size_t dc_report_test_findings(char *out, size_t len);

/* Tests: forget all findings and counters, close the sinks; the next report
 * (or dc_report_init) opens them again from the configuration. */
void dc_report_reset(void);
#endif
