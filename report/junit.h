/* junit: the merged model (report/merge.h) as JUnit XML in the Apache Ant
 * schema (report/FORMAT.md, "JUnit"); see junit.c. */
#ifndef DEVCHECK_REPORT_JUNIT_H
#define DEVCHECK_REPORT_JUNIT_H
#include "common/format.h"
#include "report/merge.h"

#pragma GCC visibility push(hidden)

void dc_model_junit(const struct dc_model *m, struct dc_sbuf *out);

#pragma GCC visibility pop
#endif
