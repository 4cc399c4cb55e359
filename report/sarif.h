/* sarif: the merged model (report/merge.h) as SARIF 2.1.0, as GitHub code
 * scanning takes it (report/FORMAT.md, "SARIF"); see sarif.c. */
#ifndef DEVCHECK_REPORT_SARIF_H
#define DEVCHECK_REPORT_SARIF_H
#include "common/format.h"
#include "report/merge.h"

#pragma GCC visibility push(hidden)

void dc_model_sarif(const struct dc_model *m, struct dc_sbuf *out);

#pragma GCC visibility pop
#endif
