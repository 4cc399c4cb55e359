/* options: one flag table (preload/flags.def) feeds DEVCHECK_OPTIONS
 * (key=value:key=value, ASan style) and the devcheck wrapper's command line
 * (--key-with-dashes value, Compute Sanitizer style). */
#ifndef DEVCHECK_OPTIONS_H
#define DEVCHECK_OPTIONS_H
#include <stdio.h>

enum dc_mode   { DC_MODE_REPORT = 0, DC_MODE_OFF };
enum dc_policy { DC_POLICY_ERROR = 0, DC_POLICY_WARN, DC_POLICY_IGNORE };

struct dc_options {
#define DC_FLAG(type, name, dflt, help) type name;
#include "flags.def"
#undef DC_FLAG
};
extern struct dc_options dc_opt;

/* Resets dc_opt to the defaults. */
void dc_options_defaults(void);
/* Parses "k=v:k=v".  On an unknown key or bad value: writes one line naming
 * it to errbuf, resets dc_opt to the defaults and returns -1. */
int dc_options_parse(const char *s, char *errbuf, size_t errlen);
/* Prints the table (name, type, default, help). */
void dc_options_help(FILE *out);
#endif
