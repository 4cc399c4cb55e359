/* replay: devcheck's third front end.  The interposer (preload/) and the
 * CUPTI subscriber (cupti/) see a running program's launches; the replay
 * reads launches recorded from one (report/FORMAT.md, "Replay: recorded
 * launches": a GPU's own recorder, or devcheck's record_launches) and hands
 * each to the same launch check, dedup and report a live run uses:
 *
 *   preload/ (hooks)  ----\
 *   cupti/ (callbacks) ----+--> core/core.h --> core --> report/
 *   replay/ (records) ----/
 *
 * What the core asks of the process and its driver -- the driver's entry
 * points (core/base/cudacall.def: what memory an address is, a kernel's name and
 * parameter layout, the launch device) and the process's own state (the
 * mapping that holds an address, the object that made a kernel's image) --
 * the replay answers from the record of the launch being judged
 * (dc_driver_bind, dc_process_bind).  The types of the parameters come from
 * devcheck's own evidence (the mangled name), as in a live run; the record's
 * classes, where a devcheck recording wrote them, are not used.
 *
 * Contract: runs in the devcheck command's own process (`devcheck replay`),
 * single-threaded, after the options are parsed (dc_opt); never crashes on
 * a malformed record: a bad line is named (file:line) on stderr and the rest
 * of the file is judged. */
#ifndef DEVCHECK_REPLAY_H
#define DEVCHECK_REPLAY_H

#pragma GCC visibility push(hidden)

/* Judges the traces files[0..nfiles) (gzip'd or plain JSON Lines) with the
 * origins TSV `origins` (NULL: none; trace name, kernel name, origin label per
 * line) and prints the reports and the SUMMARY as a live run would (dc_opt's
 * log_path, json_path, ...).  Returns the exit status: 0 no errors found,
 * 1 errors found, 2 a file (or the origins) could not be read or the
 * options ask for what only a live run can do (mode=migrate, sync=1). */
int dc_replay_run(char *const *files, int nfiles, const char *origins);

#pragma GCC visibility pop
#endif
