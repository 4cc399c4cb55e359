/* options: one flag table (core/base/flags.def) feeds DEVCHECK_OPTIONS
 * (key=value:key=value, ASan style) and the devcheck wrapper's command line
 * (--key-with-dashes value, Compute Sanitizer style). */
#ifndef DEVCHECK_OPTIONS_H
#define DEVCHECK_OPTIONS_H
#include <stdio.h>
#include <stddef.h>
#include "report/report.h"      /* enum dc_halt: how halt_on_error stops */

/* DC_MODE_MIGRATE: report, and move the operands of device_mismatch errors
 * (and pageable host memory errors) to the launch device for the launch. */
enum dc_mode   { DC_MODE_REPORT = 0, DC_MODE_OFF, DC_MODE_MIGRATE };
/* DC_POLICY_AUTO: host_memory only (pinned/registered warn; pageable error
 * unless the launch device reports pageable memory access, then warn). */
enum dc_policy { DC_POLICY_ERROR = 0, DC_POLICY_WARN, DC_POLICY_IGNORE, DC_POLICY_AUTO };
/* Detection paths: interposed entry points, CUPTI callbacks, or both. */
enum dc_backend { DC_BACKEND_BOTH = 0, DC_BACKEND_INTERPOSE, DC_BACKEND_CUPTI };

/* One field per flag, named after its key: dc_opt.peer, dc_opt.log_path, ...
 * String fields are never NULL ("" when unset) and point into storage owned by
 * options.c, valid until the next dc_options_parse/defaults. */
struct dc_options {
#define DC_FLAG(kind, type, name, dflt, cli, help) type name;
#include "core/base/flags.def"
#undef DC_FLAG
};
extern struct dc_options dc_opt;

/* Resets dc_opt to the defaults. */
void dc_options_defaults(void);
/* Parses "k=v:k=v" (NULL or "" = defaults) into dc_opt: dc_opt becomes the
 * defaults overridden by s, the last occurrence of a key winning.  Pairs are
 * separated by ':' or white space; a value may be quoted with '...' or "..."
 * (needed when it holds ':' or a space); a bool key alone means key=1.  On an
 * unknown key or bad value: writes one line naming it (and for an unknown key
 * the valid ones), "devcheck: ERROR: ...", to errbuf, resets dc_opt to the
 * defaults and returns -1.  0 on success. */
int dc_options_parse(const char *s, char *errbuf, size_t errlen);
/* Prints the table (name, command-line flag, default, help). */
void dc_options_help(FILE *out);

/* For the devcheck wrapper: maps command-line flags to a DEVCHECK_OPTIONS
 * string from the same table.  Reads argv[0..argc) (pass argv + 1, argc - 1)
 * up to "--" (consumed) or the first argument not starting with '-' (the
 * program).  Accepted: --key-with-dashes VALUE, --key-with-dashes=VALUE, the
 * underscore spelling, the Compute Sanitizer aliases (--log-file = log_path,
 * --json = json_path); bool flags take no separate value (--help, --help=no);
 * -h = --help.  Values are validated as dc_options_parse would.  On success
 * writes "key=value:..." (quoted when needed) to out_env, sets *consumed to the
 * index of the program's first argument (argc if none) and returns 0.  On an
 * unknown flag, missing or bad value, or out_env too small: one line into
 * errbuf, *consumed = index of the offending argument, returns -1. */
int dc_options_from_argv(int argc, char **argv, int *consumed,
                         char *out_env, size_t len, char *errbuf, size_t errlen);
/* "error", "warn", "ignore", "auto"; "report", "off", "migrate" (the halt
 * names are report.h's dc_halt_name). */
const char *dc_policy_name(enum dc_policy p);
const char *dc_mode_name(enum dc_mode m);
const char *dc_backend_name(enum dc_backend b);     /* "both", "interpose", "cupti" */
#endif
