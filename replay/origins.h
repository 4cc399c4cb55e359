/* replay's --origins table: which object made each recorded kernel, for
 * traces whose records say nothing of it (report/FORMAT.md, "Replay").  A
 * TSV of trace name, kernel name and origin label per line; '#' starts a
 * comment.  Internal to replay/; single-threaded, as dc_replay_run is. */
#ifndef DEVCHECK_REPLAY_ORIGINS_H
#define DEVCHECK_REPLAY_ORIGINS_H

#pragma GCC visibility push(hidden)

/* The first REPLAY_BAD_SHOWN bad lines of a trace (or of the origins) are
 * named; the rest are counted once at its end (a file that is not a trace
 * is said so in a few lines, not one per line). */
#define REPLAY_BAD_SHOWN 5

/* Reads the table at path: 0, or -1 when the file cannot be read (said on
 * stderr).  A malformed line is named and skipped. */
int dc_replay_load_origins(const char *path);

/* The origin (enum dc_origin) the table gives kernel in trace; -1: none. */
int dc_replay_origin_from_tsv(const char *trace, const char *kernel);

/* Frees the table. */
void dc_replay_free_origins(void);

#pragma GCC visibility pop
#endif
