/* format: fixed-buffer formatting for the report's records (see format.h). */
#include "common/format.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- growable buffers ------------------------------------------------------------- */

static int sreserve(struct dc_sbuf *b, size_t more)
{
    if (b->oom)
        return -1;
    if (b->len + more + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void dc_sputn(struct dc_sbuf *b, const char *s, size_t n)
{
    if (sreserve(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void dc_sput(struct dc_sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w < 0 || sreserve(b, (size_t)w) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)w + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)w;
}

void dc_sjson_str(struct dc_sbuf *b, const char *s)
{
    if (!s) {
        dc_sputn(b, "null", 4);
        return;
    }
    dc_sputn(b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            dc_sput(b, "\\%c", *c);
        else if (*c == '\n')
            dc_sputn(b, "\\n", 2);
        else if (*c == '\t')
            dc_sputn(b, "\\t", 2);
        else if (*c < 0x20 || *c == 0x7f)
            dc_sput(b, "\\u%04x", *c);
        else
            dc_sputn(b, (const char *)c, 1);
    }
    dc_sputn(b, "\"", 1);
}

void dc_sxml_str(struct dc_sbuf *b, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        switch (*c) {
        case '&': dc_sputn(b, "&amp;", 5); break;
        case '<': dc_sputn(b, "&lt;", 4); break;
        case '>': dc_sputn(b, "&gt;", 4); break;
        case '"': dc_sputn(b, "&quot;", 6); break;
        case '\'': dc_sputn(b, "&#39;", 5); break;
        default:
            /* XML 1.0 allows no other control characters */
            if (*c < 0x20 && *c != '\n' && *c != '\t' && *c != '\r')
                dc_sputn(b, "?", 1);
            else
                dc_sputn(b, (const char *)c, 1);
        }
    }
}

void dc_sfree(struct dc_sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
