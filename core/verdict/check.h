/* check: the launch check.  The launch description (core/verdict/launch.c) turns a
 * launch seen by either front end into a struct dc_launch; dc_check_launch() scans
 * every 8-byte-aligned word of every parameter against the registry, decides
 * each finding (device_mismatch, peer_access, host_memory, stream_mismatch,
 * unchecked_kernel) under the options, and hands it to the report
 * (report/finding.h); sync=1's async_error comes from dc_check_async_error.
 * The kernel_name / kernel_name_exclude filters and the once-per-kernel notes
 * are core/verdict/filter.c's.
 *
 * mode=migrate: the caller that can rewrite the arguments passes a struct
 * dc_moves; the operands to migrate come back in it instead of being
 * reported, the caller moves them (or fails to) and hands them back to
 * dc_check_moves_report().  A caller that cannot rewrite (the CUPTI path)
 * sets dc_launch.no_rewrite to its reason (a launch with path DC_PATH_CUPTI
 * has DC_NO_REWRITE_CUPTI without asking): those operands are then reported
 * as not migrated, with that reason, and the launch goes ahead unmodified.
 *
 * Contract: calls CUDA only to ask the driver about a pointer devcheck did
 * not see allocated (core/owner/ptrinfo.c, cached), never modifies the arguments,
 * thread-safe.  Must be called with the caller's CUDA re-entrancy guard held. */
#ifndef DEVCHECK_CHECK_H
#define DEVCHECK_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/kernel/kernels.h"
#include "core/owner/registry.h"
#include "report/finding.h"

struct dc_launch {
    const char *kernel;        /* mangled (or plain) kernel name; NULL if unknown */
    uint64_t kernel_hash;      /* dc_kernel_name_hash(kernel), once per kernel; 0: not given (computed at a finding) */
    const void *kernel_key;    /* CUfunction / CUkernel: identity for once-per-kernel notes */
    const char *api;           /* entry point that launched: "__cudaLaunchKernel", "cuLaunchKernel", ... */
    int device;                /* launch device: the device of the stream's context */
    int current_device;        /* runtime API: the calling thread's current device; -1 if not applicable */
    uintptr_t stream;          /* as the program passed it */
    int pageable_ok;           /* launch device reports pageable memory access (HMM/ATS); -1: ask the driver */
    /* Arguments: either kernelParams style (args[i] points to parameter i) ... */
    void *const *args;
    /* ... or one packed buffer (cuLaunchKernel `extra`), params at their offsets. */
    const void *argbuf;
    size_t argbuf_size;
    /* Parameter layout and what each parameter's words are (core/kernel/kernels.h:
     * only pointer parameters and pointer fields are checked); layout_known
     * == 0: nothing gave the layout, and `unchecked` says why. */
    const struct dc_param *params;
    unsigned nparams;
    /* The kernel's planned pointer words (struct dc_kernel.pwords), when
     * words_planned; else the parameters are scanned. */
    const struct dc_pword *pwords;
    unsigned npwords;
    int words_planned;
    int layout_known;
    const char *unchecked;
    enum dc_path path;         /* the detection path that saw it (0: interpose) */
    int origin;                /* enum dc_origin (core/kernel/origin.h) of the kernel's image */
    /* mode=migrate.  NULL: the caller can run the launch with rewritten
     * arguments (DC_PATH_CUPTI launches never can: DC_NO_REWRITE_CUPTI is
     * then implied); otherwise why it cannot (one of DC_NO_REWRITE_*). */
    const char *no_rewrite;
    /* Where dc_check_launch puts the operands to migrate (see struct
     * dc_moves); NULL: the caller does not migrate (they are reported). */
    struct dc_moves *moves;
};

/* The 8-byte word at absolute argument offset a of parameter `param`, which
 * starts at `start` (or of the packed buffer): 1 with *v, 0 when the launch
 * did not pass it.  (The check's reader; record_launches reads the same.) */
static inline int dc_launch_word(const struct dc_launch *l, int param, uint64_t start, uint64_t a, uintptr_t *v)
{
    if (l->args) {
        if (param < 0 || !l->args[param])
            return 0;
        memcpy(v, (const unsigned char *)l->args[param] + (a - start), sizeof *v);
        return 1;
    }
    if (!l->argbuf || a + 8 > l->argbuf_size)
        return 0;
    memcpy(v, (const unsigned char *)l->argbuf + a, sizeof *v);
    return 1;
}

/* Reasons a launch's arguments cannot be rewritten (dc_launch.no_rewrite). */
#define DC_NO_REWRITE_CUPTI   "launch seen only through CUPTI: arguments cannot be rewritten"
#define DC_NO_REWRITE_GRAPH   "graph kernel node: its arguments are kept by the graph and run later, so they cannot be migrated"
#define DC_NO_REWRITE_LIBCALL "library call: devcheck does not rewrite a library's arguments (a copy would have to outlive the asynchronous call and be copied back after it)"
#define DC_NO_REWRITE_CAPTURE "launch captured into a graph: it runs later, so its arguments cannot be migrated"

/* One operand to migrate.  check.c fills the first block; the caller the
 * second before dc_check_moves_report(). */
struct dc_move {
    int param;                  /* parameter index, -1: the packed buffer was scanned */
    uint32_t word_offset;       /* offset of the word in the parameter (buffer when param == -1) */
    uint32_t arg_offset;        /* offset of the word in the packed argument layout */
    uintptr_t address;          /* the word's value */
    int alloc_known;            /* 0: pageable host memory (no allocation known) */
    struct dc_alloc alloc;      /* when alloc_known: the source allocation */
    uintptr_t copy_base;        /* copy_size != 0: the caching allocator's block holding address */
    size_t copy_size;           /* (a tensor's), copied instead of the whole segment; 0: the allocation */
    /* check.c's (kept for the finding): */
    int kind;                   /* enum dc_finding_kind */
    int severity;
    const char *access;
    uint32_t launch_stack;
    int word;                   /* enum dc_word_kind */
    const char *evidence;
    /* The caller's: */
    uintptr_t new_address;      /* the rewritten word; 0: not migrated */
    int to_device;              /* the device it was moved to */
    uint64_t bytes;             /* bytes copied to the launch device for it (0 when shared) */
    const char *reason;         /* new_address == 0: why not */
};
struct dc_moves {
    unsigned n, cap;
    struct dc_move *v;          /* malloc'd by dc_check_launch; freed by dc_check_moves_report */
};

/* Checks one launch; returns the number of error-severity findings (0 when
 * clean or checking is off).  Counts the launch as checked or unchecked.
 *
 * Words: for parameter i at [offset, offset+size), the 8-byte words at
 * absolute offsets a = offset rounded up to 8, a+8, ... with a+8 <=
 * offset+size (read from args[i] + (a - offset), or argbuf + a when it fits
 * argbuf_size) that its class makes pointers: the word of a DC_PC_POINTER
 * parameter, the DC_WORD_PTR / DC_WORD_FIELD words of a DC_PC_WORDS one.
 * A word's value is looked up in the registry; one past the end of an
 * allocation the launch device may use is an end iterator (nothing); a value
 * the registry does not know is asked of the driver and of the process's
 * mappings (core/owner/ptrinfo.c: the driver's answer enters the registry, marked
 * from_driver; pageable host memory is only an ordinary readable mapping the
 * driver does not know; never dereferenced).  Words of unknown meaning (and
 * a packed buffer without a layout) make no finding.  Without a layout the
 * launch is unchecked (one unchecked_kernel note per kernel, with
 * `unchecked` as its reason).  device < 0: unchecked, no note.  mode=off or
 * a kernel_name/kernel_name_exclude filter: nothing happens and nothing is
 * counted.  current_device >= 0 and != device gives a stream_mismatch
 * besides the operand findings.  Decisions:
 *   managed, own memory (may access and owner == device):    nothing
 *   may access, other owner (peer, grant, pool access):      peer_access (peer=)
 *   may not access:                                          device_mismatch
 *   pinned/registered:   counted, no finding (host_memory=warn: warning,
 *                        error: error)
 *   pageable:            host_memory, error; warning when pageable_ok
 * unless the kernel's origin (l->origin, core/kernel/origin.h) says the word proves
 * less (report/FORMAT.md, "What a word proves"): in a closed library's
 * kernel host memory of any kind makes no finding and may not access is a
 * device_mismatch warning marked weak.  The host operands without a finding
 * are counted (the access matrix, the summary's quiet_operands).
 * mode=migrate: each device_mismatch, and each pageable host_memory error,
 * goes to l->moves (when set and no_rewrite is NULL) instead of the report;
 * with no_rewrite set it is reported as not_migrated with that reason.  The
 * count returned includes them. */
int dc_check_launch(const struct dc_launch *l);

/* (core/verdict/view.c) Reports the moves dc_check_launch left in l->moves (each a finding with
 * action "migrated", or "not_migrated" with its reason), counts
 * bytes_migrated, and frees the array.  Call before the launch. */
void dc_check_moves_report(const struct dc_launch *l, struct dc_moves *m);
/* Bytes copied back to the owner after a migrated launch (summary). */
void dc_check_count_migrated(uint64_t bytes);

/* sync=1: the launch l (already checked, already run) ended with the
 * asynchronous error `error` (e.g. "CUDA_ERROR_ILLEGAL_ADDRESS"): reports an
 * async_error naming the launch, every operand the registry knows (or that is
 * host memory) with its owner -- pointer words, and words of unknown meaning
 * that point into memory devcheck knows, as suspects -- and the first one
 * the launch device may not access (a pointer before a suspect) with its
 * allocation stack.  Calls CUDA only as dc_check_launch does (the driver
 * asked about a pointer devcheck did not see allocated). */
void dc_check_async_error(const struct dc_launch *l, const char *error);

/* Forgets the per-kernel cache (filter decisions, unchecked notes); tests
 * call it after changing the options. */
void dc_check_reset(void);
#endif
