/* format: a record is formatted into a fixed buffer, never allocated, and
 * leaves with one write(); what does not fit is cut and marked truncated. */
#ifndef DEVCHECK_REPORT_FORMAT_H
#define DEVCHECK_REPORT_FORMAT_H
#include <stddef.h>

#pragma GCC visibility push(hidden)

struct dc_buf {
    char *p;
    size_t len, pos;
    int truncated;
};
/* Appends printf-style; past the end: truncated, pos at len - 1. */
void dc_bput(struct dc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* JSON string literal (with quotes) of s, or null when s is NULL. */
void dc_bjson_str(struct dc_buf *b, const char *s);

/* A growable buffer for whole documents (SARIF, JUnit, HTML, merged JSON
 * Lines) written at exit or by the wrapper.  Out of memory: oom set, later
 * appends ignored. */
struct dc_sbuf {
    char *p;
    size_t len, cap;
    int oom;
};
void dc_sput(struct dc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dc_sputn(struct dc_sbuf *b, const char *s, size_t n);
void dc_sjson_str(struct dc_sbuf *b, const char *s);    /* JSON string literal, or null */
void dc_sxml_str(struct dc_sbuf *b, const char *s);     /* XML/HTML text or attribute, escaped */
void dc_sfree(struct dc_sbuf *b);

#pragma GCC visibility pop
#endif
