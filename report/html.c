/* html: the merged model as one self-contained HTML page (placeholder until
 * the matrices land). */
#include "report/merge.h"

void dc_model_html(const struct dc_model *m, struct dc_sbuf *o)
{
    dc_sput(o, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>devcheck report</title></head><body>");
    dc_sput(o, "<p>%zu findings</p></body></html>\n", m->nf);
}
