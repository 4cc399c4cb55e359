/* suppress: suppression files in Valgrind's shape (report/FORMAT.md,
 * "Suppressions"):
 *
 *   {
 *      name-of-the-entry
 *      devcheck:device_mismatch        (devcheck:KIND, a glob: devcheck:*)
 *      kernel:concat*                  (optional: mangled or demangled name)
 *      src:*modeling_*.py:*            (frames of the launch stack, innermost
 *      fun:main                         first: fun:, obj:, src: globs, and
 *      ...                              ... for any number of frames)
 *   }
 *   {
 *      one-pytorch-error
 *      devcheck:framework_device_error
 *      op:cat                          (optional: a framework error's operator)
 *      py:*vlm.py:merge:8              (Python frames only, innermost first:
 *      py:*test_vlm.py:test_raises      py:FILE[:FUNCTION[:LINE]] globs, and ...)
 *   }
 *
 * The matcher works on one list of frames {function, symbol, object, file,
 * line}, innermost first: native frames and (issue 12) Python frames alike.
 * The frames of an entry must match the innermost frames of the stack
 * (what follows them is not looked at); `...` matches zero or more frames.
 * Thread-safe after dc_supp_load; counts are atomics. */
#ifndef DEVCHECK_REPORT_SUPPRESS_H
#define DEVCHECK_REPORT_SUPPRESS_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One frame as the matcher sees it (any field may be NULL or ""). */
struct dc_sframe {
    const char *function;       /* demangled, or a Python function name */
    const char *symbol;         /* mangled ELF symbol, if any */
    const char *object;         /* module (ELF object path, or the Python file) */
    const char *file;           /* source file as recorded (absolute or relative) */
    int line;                   /* 0: unknown */
    int python;                 /* a Python frame (py: patterns match these only) */
};

/* The longest line a suppression file may have (a longer one is refused,
 * naming the file and line); generated entries stay within it. */
#define DC_SUPP_LINE_MAX 16384

/* Loads the comma-separated files in `files` (replacing what was loaded).
 * 0, or -1 with one line naming the file and line in err (nothing is then
 * loaded). */
int dc_supp_load(const char *files, char *err, size_t errlen);
/* Loaded entries (0: none). */
size_t dc_supp_count(void);
/* The first entry matching (kind, kernel names, frames): its index, counted
 * (count_it) — or -1. */
int dc_supp_match(const char *kind, const char *kernel_mangled, const char *kernel_demangled,
                  const struct dc_sframe *frames, size_t nframes, int count_it);
/* The same, for a finding with an operator (a framework error's: the
 * method its message names, "cat"): an entry with op:GLOB matches only
 * such a finding.  An entry of py: frames is matched against the Python
 * frames of `frames` alone (innermost first). */
int dc_supp_match_op(const char *kind, const char *kernel_mangled, const char *kernel_demangled, const char *op,
                     const struct dc_sframe *frames, size_t nframes, int count_it);
/* Adds n to entry i's count (repeats of a suppressed finding). */
void dc_supp_add(int i, uint64_t n);
/* Entry i: name, file, line where it starts, count so far; NULL name past
 * the end. */
const char *dc_supp_entry(size_t i, const char **file, int *line, uint64_t *count);
/* Forgets all entries and counts (tests). */
void dc_supp_reset(void);
/* Zeroes the counts, keeping the entries (a fork child counts its own). */
void dc_supp_zero(void);

/* fnmatch(pat, s, 0) in at most strlen(pat) * strlen(s) steps: `*`, `?`,
 * `[...]` (`!` or `^` negates, ranges), `\\` quotes.  1 on a match. */
int dc_supp_glob(const char *pat, const char *s);

/* A ready-to-paste entry for a finding (--gen-suppressions) into out. */
struct dc_buf;
void dc_supp_generate(struct dc_buf *out, const char *kind, const char *kernel_mangled,
                      const struct dc_sframe *frames, size_t nframes);
/* With the finding's operator (op: line); frames that are all Python frames
 * (a framework error's) give py: lines up to the second of the user's own
 * frames, so the entry hides that one error and nothing else. */
void dc_supp_generate_op(struct dc_buf *out, const char *kind, const char *kernel_mangled, const char *op,
                         const struct dc_sframe *frames, size_t nframes);

#pragma GCC visibility pop
#endif
