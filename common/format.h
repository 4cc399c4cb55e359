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
/* JSON string literal (with quotes) of s, or null when s is NULL.  Always
 * valid UTF-8: a byte that is not part of a UTF-8 character is written as
 * the lone surrogate \udcXX (Python's surrogateescape, PEP 383: the raw
 * bytes come back with .encode("utf-8", "surrogateescape")). */
void dc_bjson_str(struct dc_buf *b, const char *s);
/* The length of the valid UTF-8 character at s (1-4; no overlong form, no
 * surrogate, nothing past U+10FFFF), 0 when s starts no such character.
 * Never reads past a NUL. */
size_t dc_utf8_seq(const unsigned char *s);
/* Are the n bytes at s valid UTF-8 (a NUL among them is)? */
int dc_utf8_valid(const char *s, size_t n);
/* Escapes p[start..end) in place for a terminal: each control character
 * (but tab, and newline unless `newlines`), DEL, and each byte that is not
 * part of a UTF-8 character becomes \xNN.  The result stays below cap bytes
 * (NUL included); what does not fit is cut.  Returns the new end. */
size_t dc_text_escape(char *p, size_t start, size_t end, size_t cap, int newlines);

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
/* dc_text_escape of b's text from offset `from` to its end, in place. */
void dc_stext_escape(struct dc_sbuf *b, size_t from, int newlines);
void dc_sfree(struct dc_sbuf *b);

#pragma GCC visibility pop
#endif
