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

size_t dc_utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned cp, min;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07, min = 0x10000;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {        /* a NUL is no continuation byte: stops here */
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return 0;
    return n;
}

int dc_utf8_valid(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = s[i] ? dc_utf8_seq((const unsigned char *)s + i) : 1;
        if (!k || i + k > n)
            return 0;
        i += k;
    }
    return 1;
}

/* The JSON escape of the byte sequence at *c (one character, or one byte
 * that is not UTF-8), into e[16]; its length in *in.  NULL: copy *in bytes. */
static const char *json_esc(const unsigned char *c, size_t *in, char e[16])
{
    *in = 1;
    if (*c == '"' || *c == '\\') {
        snprintf(e, 16, "\\%c", *c);
        return e;
    }
    if (*c == '\n')
        return "\\n";
    if (*c == '\t')
        return "\\t";
    if (*c < 0x20 || *c == 0x7f) {
        snprintf(e, 16, "\\u%04x", *c);
        return e;
    }
    size_t n = dc_utf8_seq(c);
    if (!n) {                   /* PEP 383: the byte as a lone low surrogate */
        snprintf(e, 16, "\\udc%02x", *c);
        return e;
    }
    *in = n;
    return NULL;
}

/* JSON string literal (with quotes) of s, or null when s is NULL. */
void dc_bjson_str(struct dc_buf *b, const char *s)
{
    if (!s) {
        dc_bput(b, "null");
        return;
    }
    dc_bput(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        char e[16];
        size_t in;
        const char *x = json_esc(c, &in, e);
        if (x)
            dc_bput(b, "%s", x);
        else
            dc_bput(b, "%.*s", (int)in, (const char *)c);
        c += in;
    }
    dc_bput(b, "\"");
}

/* The bytes at c (`left` of them) that stay as they are in text: a UTF-8
 * character's length, or 0 for a byte to escape.  Reads only inside left. */
static size_t text_keep(const unsigned char *c, size_t left, int newlines)
{
    if ((*c < 0x20 && (*c != '\n' || newlines) && *c != '\t') || *c == 0x7f)
        return 0;
    unsigned char u[5] = { 0 };
    memcpy(u, c, left < 4 ? left : 4);
    return dc_utf8_seq(u);
}

size_t dc_text_escape(char *p, size_t start, size_t end, size_t cap, int newlines)
{
    /* pass 1: how much longer the escaped text is; where to cut so it fits */
    size_t extra = 0, cut = end;
    for (size_t i = start; i < end;) {
        size_t n = text_keep((const unsigned char *)p + i, end - i, newlines);
        size_t grow = n ? 0 : 3;
        if (end + extra + grow >= cap) {
            cut = i;
            break;
        }
        extra += grow;
        i += n ? n : 1;
    }
    if (!extra) {
        p[cut] = 0;
        return cut;
    }
    /* pass 2: the text moved to the end of the space, escaped forwards back
     * into place; the writer never passes the reader (extra <= the gap) */
    size_t gap = extra, len = cut - start;
    memmove(p + start + gap, p + start, len);
    const unsigned char *r = (const unsigned char *)p + start + gap, *rend = r + len;
    char *w = p + start;
    while (r < rend) {
        size_t n = text_keep(r, (size_t)(rend - r), newlines);
        if (n) {
            memmove(w, r, n);
            w += n, r += n;
        } else {
            static const char hex[] = "0123456789abcdef";
            unsigned char c = *r++;
            w[0] = '\\', w[1] = 'x', w[2] = hex[c >> 4], w[3] = hex[c & 15];
            w += 4;
        }
    }
    *w = 0;
    return (size_t)(w - p);
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
    for (const unsigned char *c = (const unsigned char *)s; *c;) {
        char e[16];
        size_t in;
        const char *x = json_esc(c, &in, e);
        if (x)
            dc_sputn(b, x, strlen(x));
        else
            dc_sputn(b, (const char *)c, in);
        c += in;
    }
    dc_sputn(b, "\"", 1);
}

void dc_sxml_str(struct dc_sbuf *b, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        size_t n = *c < 0x80 ? 1 : dc_utf8_seq(c);
        if (n > 1) {
            dc_sputn(b, (const char *)c, n);
            c += n - 1;
            continue;
        }
        if (!n || *c == 0x7f) {         /* as text shows it: \xNN */
            dc_sput(b, "\\x%02x", *c);
            continue;
        }
        switch (*c) {
        case '&': dc_sputn(b, "&amp;", 5); break;
        case '<': dc_sputn(b, "&lt;", 4); break;
        case '>': dc_sputn(b, "&gt;", 4); break;
        case '"': dc_sputn(b, "&quot;", 6); break;
        case '\'': dc_sputn(b, "&#39;", 5); break;
        default:
            /* XML 1.0 allows no other control characters */
            if (*c < 0x20 && *c != '\n' && *c != '\t' && *c != '\r')
                dc_sput(b, "\\x%02x", *c);
            else
                dc_sputn(b, (const char *)c, 1);
        }
    }
}

void dc_stext_escape(struct dc_sbuf *b, size_t from, int newlines)
{
    if (b->oom || !b->p || from >= b->len || sreserve(b, 3 * (b->len - from)) != 0)
        return;
    b->len = dc_text_escape(b->p, from, b->len, b->cap, newlines);
}

void dc_sfree(struct dc_sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->oom = 0;
}
