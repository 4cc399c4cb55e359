/* merge: devcheck's JSON Lines records from any number of processes,
 * ranks and hosts, read back and merged into one deduplicated model; the
 * documents (merged JSON Lines, SARIF, JUnit, HTML: report/documents.h) are
 * written from it.
 * Used three ways: by a process at exit (its own records), by the wrapper
 * (every process of its tree), by `devcheck report FILE...`.
 *
 * Reading: a finding line is keyed by (origin file, host, pid, id), the
 * last line of a key wins (a repeated finding is written again at exit with
 * its final count); a summary line by (origin, host, pid); a tree file's
 * header ({"type":"process",...}, read by the wrapper) is skipped.  A line
 * that is not a devcheck record is reported (origin, line number, why) and
 * skipped; everything else is kept.
 *
 * Merging: findings of different processes are one finding when their
 * fingerprint is equal: kind, kernel, operand (parameter, word), launch
 * and owner devices (their UUIDs where the record names them: an ordinal
 * is the process's own, report/gpus.h; else the ordinals), memory kind, action, and the launch and allocation
 * sites (function, file:line, or module+offset of each frame; Python frames
 * first where present) -- never addresses or process-local ids, so the
 * fingerprint is also stable across runs (SARIF partialFingerprints).  The
 * merged finding keeps the first record, the summed count and each
 * process's share (pid, rank, host, count). */
#ifndef DEVCHECK_REPORT_MERGE_H
#define DEVCHECK_REPORT_MERGE_H
#include <stddef.h>
#include <stdint.h>
#include "common/format.h"
#include "common/json.h"
#include "report/mgpus.h"
#include "report/summary.h"

#pragma GCC visibility push(hidden)

struct dc_mproc {               /* one process (image) that wrote records */
    const char *origin;
    const char *host;
    int pid;
    int rank;                   /* -1: none */
    const struct dc_json *summary;      /* its summary record, NULL if it had none (killed) */
    uint64_t findings, errors;  /* its own unique findings (for the filters) */
};

struct dc_mshare {              /* a process's share of a merged finding */
    int pid, rank;
    const char *host;
    uint64_t count;
};

struct dc_mfinding {
    char fp[17];                /* fingerprint, 16 hex digits */
    const struct dc_json *rec;  /* the first record */
    uint64_t count;             /* summed */
    struct dc_mshare *shares;
    size_t nshares;
};

struct dc_msupp {
    const char *name, *file;
    int line;
    uint64_t count;
};

/* One line of the transfer matrix / the access matrix, summed (issue 14's
 * HTML report; from the summary records' "transfers" and "access"). */
struct dc_mcell {
    int row, col;               /* devices; -1 host (pinned), -2 pageable host */
    uint64_t a, b, c, d, e;     /* access: operands, errors, warnings, infos, bytes migrated;
                                 * transfer: calls, bytes */
};
struct dc_msite {
    int src, dst;
    const char *site;           /* "function at file:line" */
    uint64_t calls, bytes;
};

struct dc_model {
    char root[4096];            /* source root, absolute, no trailing '/' */
    char cwd[4096];             /* relative source files are taken as relative to it */
    struct dc_mfinding *f;
    size_t nf;
    struct dc_mproc *procs;
    size_t nprocs;
    struct dc_msupp *supps;
    size_t nsupps;
    struct dc_mcell *access, *xfer;
    size_t naccess, nxfer;
    struct dc_msite *sites;
    size_t nsites;
    struct dc_mgpus gpus;       /* the GPUs by host and UUID (report/mgpus.h) */
    struct dc_report_stats totals;      /* after dc_model_merge */
    unsigned procs_without_summary;
    uint64_t bad_lines;
    int migrate;                /* set by the caller: mode=migrate (the summary names bytes migrated) */
    int verbosity;              /* set by the caller: >= 1 unfolds library frames in the text (dc_model_text) */
    struct dc_model_priv *priv;
};

/* source_root: SARIF paths relative to it (NULL: the working directory). */
struct dc_model *dc_model_new(const char *source_root);
void dc_model_free(struct dc_model *m);
/* One line (without its newline); origin and lineno name it.  0, or -1
 * with why (when why is not NULL) when it is not a devcheck record. */
int dc_model_add(struct dc_model *m, const char *line, size_t len, const char *origin, long lineno, char *why,
                 size_t whylen);
/* The longest line read (a longer one is a bad line, named), and how many
 * bad lines of one file are named one by one. */
#define DC_MODEL_LINE_MAX (64u << 20)
#define DC_MODEL_BAD_SHOWN 5
/* Every line of a file; the first DC_MODEL_BAD_SHOWN bad lines are each
 * reported with bad(ctx, origin, lineno, why), and when there were more,
 * one bad(ctx, origin, 0, why) counts them.  -1 (errno) when the file
 * cannot be read (a directory: EISDIR). */
int dc_model_add_file(struct dc_model *m, const char *path,
                      void (*bad)(void *ctx, const char *origin, long lineno, const char *why), void *ctx);
/* Merges what was added (once, after the last add): findings, totals,
 * suppressions, matrices. */
void dc_model_merge(struct dc_model *m);

/* The model written back as JSON Lines (merged JSON Lines: the format it
 * reads, one record per merged finding with its fingerprint and processes,
 * and one summary; the HTML report embeds it). */
void dc_model_jsonl(const struct dc_model *m, struct dc_sbuf *out);
/* The same, each finding also with its "headline" (dc_model_message) and
 * its "report" (dc_model_text) when with_text: the HTML report's data. */
void dc_model_jsonl_text(const struct dc_model *m, struct dc_sbuf *out, int with_text);

/* --- for the writers ---------------------------------------------------------- */

/* A site of finding record r: `which` is "launch" or "alloc".  The innermost
 * frame with a source file in the user's tree (Python frames first, from
 * launch_python_stack / alloc_python_stack), else the innermost frame with
 * a file, else the innermost frame.  *file: relative to the root when
 * inside it (in_tree 1), else as recorded; NULL when no frame has a file.
 * Returns the frame (NULL: none). */
const struct dc_json *dc_model_site(const struct dc_model *m, const struct dc_json *r, const char *which,
                                    const char **file, char *rel, size_t rellen, int *in_tree);
/* file as SARIF and the text name it: relative to the root when inside it
 * and not a system or installed library file (returns 1), else as recorded
 * (returns 0). */
int dc_model_relpath(const struct dc_model *m, const char *file, char *rel, size_t rellen);
/* One line saying what the finding is (SARIF message, JUnit message). */
void dc_model_message(const struct dc_json *r, struct dc_sbuf *out);
/* The text report of a finding, as the log shows it (JUnit failure text):
 * its headline, its kind's details, its stacks -- the innermost frame, then
 * the user's frames, each run of two or more library frames (installed or
 * system files, native frames without a file) folded into one line with
 * their count and libraries unless m->verbosity -- its hint, its processes. */
void dc_model_text(const struct dc_model *m, const struct dc_mfinding *f, struct dc_sbuf *out);
/* "devcheck: SUMMARY: ..." of the merged model (dc_summary_text; bytes
 * migrated under m->migrate or when any were, processes when more than
 * one). */
void dc_text_summary_for_model(const struct dc_model *m, struct dc_buf *b);
/* "pid":P,"rank":R|null,"host":"H" (no braces): every process a merged
 * file names. */
void dc_model_put_proc(struct dc_sbuf *o, int pid, int rank, const char *host);
/* Writes v as JSON. */
void dc_json_write(const struct dc_json *v, struct dc_sbuf *out);

#pragma GCC visibility pop
#endif
