/* check: the launch check.  The interposer (preload/) and later the CUPTI
 * subscriber describe a launch in a struct dc_launch; dc_check_launch() scans
 * every 8-byte-aligned word of every parameter against the registry, decides
 * each finding (device_mismatch, peer_access, host_memory, stream_mismatch,
 * unchecked_kernel) under the options, and hands it to the report.
 *
 * Contract: never calls CUDA, never modifies the arguments, thread-safe.
 * Must be called with the caller's CUDA re-entrancy guard held. */
#ifndef DEVCHECK_CHECK_H
#define DEVCHECK_CHECK_H
#include <stddef.h>
#include <stdint.h>

struct dc_param { uint32_t offset, size; };

enum dc_finding_kind {
    DC_F_DEVICE_MISMATCH = 0,
    DC_F_PEER_ACCESS,
    DC_F_HOST_MEMORY,
    DC_F_STREAM_MISMATCH,
    DC_F_UNCHECKED_KERNEL,
    DC_F_KIND_COUNT
};
const char *dc_finding_kind_name(enum dc_finding_kind k);  /* "device_mismatch", ... */

/* Which detection path saw a launch: the interposed entry points or the
 * CUPTI callbacks (cupti/).  Reported per finding and counted in the summary. */
enum dc_path { DC_PATH_INTERPOSE = 0, DC_PATH_CUPTI, DC_PATH_COUNT };
const char *dc_path_name(enum dc_path p);                  /* "interpose", "cupti" */

struct dc_launch {
    const char *kernel;        /* mangled (or plain) kernel name; NULL if unknown */
    const void *kernel_key;    /* CUfunction / CUkernel: identity for once-per-kernel notes */
    const char *api;           /* entry point that launched: "__cudaLaunchKernel", "cuLaunchKernel", ... */
    int device;                /* launch device: the device of the stream's context */
    int current_device;        /* runtime API: the calling thread's current device; -1 if not applicable */
    uintptr_t stream;          /* as the program passed it */
    int pageable_ok;           /* launch device reports pageable memory access (HMM/ATS) */
    /* Arguments: either kernelParams style (args[i] points to parameter i) ... */
    void *const *args;
    /* ... or one packed buffer (cuLaunchKernel `extra`), params at their offsets. */
    const void *argbuf;
    size_t argbuf_size;
    /* Parameter layout; layout_known == 0 means the driver could not say. */
    const struct dc_param *params;
    unsigned nparams;
    int layout_known;
    enum dc_path path;         /* the detection path that saw it (0: interpose) */
};

/* Checks one launch; returns the number of error-severity findings (0 when
 * clean or checking is off).  Counts the launch as checked or unchecked.
 *
 * Words: for parameter i at [offset, offset+size), every 8-byte word at an
 * absolute offset a = offset rounded up to 8, a+8, ... with a+8 <= offset+size
 * (read from args[i] + (a - offset), or argbuf + a when it fits argbuf_size);
 * a word's value is looked up in the registry, and a value the registry does
 * not know but that lies in a mapped page (mincore; never dereferenced) is
 * pageable host memory.  Without a layout but with argbuf, the whole buffer
 * is scanned (param -1 in the findings); without both, the launch is
 * unchecked (one unchecked_kernel note per kernel).  device < 0: unchecked,
 * no note.  mode=off or a kernel_name/kernel_name_exclude filter: nothing
 * happens and nothing is counted.  current_device >= 0 and != device gives a
 * stream_mismatch besides the operand findings.  Decisions:
 *   managed, own memory (may access and owner == device):    nothing
 *   may access, other owner (peer, grant, pool access):      peer_access (peer=)
 *   may not access:                                          device_mismatch
 *   pinned/registered:   host_memory, warning (host_memory=error|warn|ignore)
 *   pageable:            host_memory, error; warning when pageable_ok */
int dc_check_launch(const struct dc_launch *l);

/* Forgets the per-kernel cache (filter decisions, unchecked notes); tests
 * call it after changing the options. */
void dc_check_reset(void);
#endif
