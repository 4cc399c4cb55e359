/* format: fixed-buffer formatting for the report's records (see format.h). */
#include "report/format.h"

#include <stdarg.h>
#include <stdio.h>

void dc_bput(struct dc_buf *b, const char *fmt, ...)
{
    if (b->pos + 1 >= b->len) {
        b->truncated = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->p + b->pos, b->len - b->pos, fmt, ap);
    va_end(ap);
    if (w < 0)
        return;
    if ((size_t)w >= b->len - b->pos) {
        b->pos = b->len - 1;
        b->truncated = 1;
    } else {
        b->pos += (size_t)w;
    }
}

/* JSON string literal (with quotes) of s, or null when s is NULL. */
void dc_bjson_str(struct dc_buf *b, const char *s)
{
    if (!s) {
        dc_bput(b, "null");
        return;
    }
    dc_bput(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            dc_bput(b, "\\%c", *c);
        else if (*c == '\n')
            dc_bput(b, "\\n");
        else if (*c == '\t')
            dc_bput(b, "\\t");
        else if (*c < 0x20 || *c == 0x7f)
            dc_bput(b, "\\u%04x", *c);
        else
            dc_bput(b, "%c", *c);
    }
    dc_bput(b, "\"");
}
