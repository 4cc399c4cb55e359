/* record: the option record_launches=DIR.  A live run writes the launches it
 * checks in the format `devcheck replay` reads (report/FORMAT.md, "Replay:
 * recorded launches"), one file per process, DIR/<pid>.jsonl: a header, the
 * first DC_RECORD_PER_KERNEL launches of each kernel handle (name, launch
 * device, the parameters' bytes, and for every word that could be an address
 * what the driver and the process's mappings say of it), devcheck's own view
 * (the kernel's origin, the class it gave each word, the allocation its
 * registry knows), and at exit each kernel handle's launch count.  A trace of
 * a run can be attached to a report, and a replay of it judges as the run did.
 *
 * Contract: costs one load and branch per launch when the option is off;
 * never changes the program (reads the arguments only; asks the driver with
 * the guard held); an unwritable DIR is one line on the log, then nothing
 * more is recorded; thread-safe (one mutex); a forked child writes its own
 * file. */
#ifndef DEVCHECK_CORE_RECORD_H
#define DEVCHECK_CORE_RECORD_H
#include "core/verdict/check.h"
#include "core/kernel/kernels.h"

#pragma GCC visibility push(hidden)

#define DC_RECORD_PER_KERNEL 4

/* Set by dc_record_open when record_launches names a directory. */
extern int dc_record_on;
/* From dc_core_open: on when dc_opt.record_launches is set. */
void dc_record_open(void);
/* The launch l of kernel k, about to be checked (guard held). */
void dc_record_launch(const struct dc_launch *l, const struct dc_kernel *k);
/* At exit (dc_core_finish): each kernel handle's launch count; closes the file. */
void dc_record_finish(void);
/* fork handlers (core/lifecycle.c registers them). */
void dc_record_fork_prepare(void);
void dc_record_fork_parent(void);
void dc_record_fork_child(void);

#pragma GCC visibility pop
#endif
