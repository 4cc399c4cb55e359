/* sinks: the files the report's records go to: the log (stderr, or
 * log_path) for text reports and dc_log lines, JSON Lines (json_path), the
 * wrapper's per-process file (tree_dir), and the whole documents written at
 * exit (SARIF, JUnit, HTML).  The report (report.c) opens, reopens and closes
 * the sinks under its lock; dc_log (report/log.h) writes from any thread.
 *
 * Guarantees (report/FORMAT.md, "Output files"):
 *  - devcheck writes only to an fd it opened and still owns: each file is
 *    opened O_APPEND|O_CLOEXEC and moved to a high fd; before every write
 *    its device and inode are compared with what was opened, and a file the
 *    program closed (or whose fd number it reused) is opened again by path.
 *    stderr (fd 2) is the program's, written as ASan does.
 *  - A path that is neither a regular file, a terminal nor a memory device
 *    (/dev/null, /dev/full, ...) is refused with one line (a FIFO never
 *    blocks: it is opened O_NONBLOCK and refused).
 *  - Every record leaves with one write() (whole records, O_APPEND, so
 *    processes sharing a file never cut each other's lines); a write error
 *    gives one line on stderr per file and is counted (the summary says it).
 *  - Only the first process of a tree truncates a shared file
 *    (dc_sinks_claim_root): later processes append. */
#ifndef DEVCHECK_REPORT_SINKS_H
#define DEVCHECK_REPORT_SINKS_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Opens the log, JSON and tree sinks (NULL or "": stderr, no JSON, no tree
 * file).  tree_dir: the wrapper's directory; the records go to
 * TREE_DIR/<pid>.<n>.jsonl as well, after a first line giving this
 * process's own expansion of the wrapper's path options (TREE_DIR/.paths:
 * `key NUL pattern NUL` pairs): {"type":"process",...,"paths":{key:path}}.
 * Under tree_dir the first process to open a log or JSON path truncates it
 * (TREE_DIR/.claim-<hash>). */
void dc_sinks_open(const char *log_path, const char *json_path, const char *tree_dir);
/* fork: prepare takes the sinks' lock, parent releases it, the child
 * re-initialises it; then (the report's child handler) the sinks whose path
 * names the process (%p) and the tree file are reopened under its pid. */
void dc_sinks_fork_prepare(void);
void dc_sinks_fork_parent(void);
void dc_sinks_fork_child(void);
void dc_sinks_reopen_child(const char *log_path, const char *json_path, const char *tree_dir);
/* fsync and close all (on disk before the program may die: halt_on_error);
 * the log goes back to stderr. */
void dc_sinks_close(void);
int  dc_sinks_have_json(void);                  /* a JSON or tree sink is open */
void dc_sink_text(const char *s, size_t n);     /* to the log */
void dc_sink_json(const char *s, size_t n);     /* to JSON Lines and the tree file, if open */
/* Inside a signal handler: the sinks take no lock and never block on one. */
void dc_sinks_signal_mode(void);
/* Write errors so far (every sink, every record). */
uint64_t dc_sinks_write_errors(void);
/* The paths as opened (expanded); "" for stderr / no JSON. */
const char *dc_sinks_log_used(void);
const char *dc_sinks_json_used(void);

/* Expands a path option: %p (pid), %r (rank: RANK, SLURM_PROCID,
 * OMPI_COMM_WORLD_RANK or PMI_RANK, else 0), %h (host name), %q{VAR} (the
 * environment variable, empty if unset), %% (%).  0, or -1 when it does not
 * fit or %q is not closed. */
int dc_path_expand(const char *in, char *out, size_t len);
/* The rank from the environment (the variables above), -1 when none. */
int dc_env_rank(void);
/* Writes a whole document (SARIF, JUnit, HTML) to `path` (expanded): to a
 * temporary file beside it, renamed over it, so a reader never sees half a
 * file; a terminal or memory device is written directly.  what: the
 * option's name for the one line an error gives.  0 or -1 (said why). */
int dc_sinks_write_document(const char *what, const char *path, const char *data, size_t n);

/* The first devcheck process of a process tree (its environment has no
 * DEVCHECK_ROOT_PID: it sets it to its pid, inherited by every child) is the
 * root: 1, also for the programs it exec's without a fork (same pid).
 * Children, and processes under the wrapper (which sets it), 0. */
int dc_sinks_claim_root(void);
/* The root, before main: truncates the files its children will append to
 * (the log and JSON paths that do not name the process with %p), unless
 * they were opened (and so truncated) already. */
void dc_sinks_truncate_shared(const char *log_path, const char *json_path);
/* A fork child is not its tree's root. */
void dc_sinks_forget_root(void);

#pragma GCC visibility pop
#endif
