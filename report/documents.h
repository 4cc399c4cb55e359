/* documents: a merged model (report/merge.h) written out whole: merged JSON
 * Lines, SARIF, JUnit, HTML, each to its own path (report/sinks.h,
 * dc_sinks_write_document: to a temporary file renamed over it).  What a
 * process writes at exit (report.c), the wrapper for its process tree, and
 * `devcheck report`. */
#ifndef DEVCHECK_REPORT_DOCUMENTS_H
#define DEVCHECK_REPORT_DOCUMENTS_H
#include "report/merge.h"

#pragma GCC visibility push(hidden)

/* Each path may be NULL or "" (not written); %p %r %h %q{VAR} expanded.
 * Returns the number that could not be written (said why). */
int dc_model_write_documents(const struct dc_model *m, const char *sarif, const char *junit, const char *html,
                             const char *jsonl);

#pragma GCC visibility pop
#endif
