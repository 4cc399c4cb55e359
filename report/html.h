/* html: the merged model (report/merge.h) as one self-contained HTML page
 * (report/FORMAT.md, "HTML report"); see html.c. */
#ifndef DEVCHECK_REPORT_HTML_H
#define DEVCHECK_REPORT_HTML_H
#include "common/format.h"
#include "report/merge.h"

#pragma GCC visibility push(hidden)

void dc_model_html(const struct dc_model *m, struct dc_sbuf *out);

#pragma GCC visibility pop
#endif
