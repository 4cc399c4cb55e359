/* json: a small JSON reader for devcheck's own records (merging JSON Lines
 * from many processes: report/merge.c).  Parses one text into a tree of
 * values; never crashes on bad input (NULL and the byte offset of the
 * error).  Strings are decoded (\uXXXX to UTF-8; a lone \udc80-\udcff to the
 * raw byte it stands for, as format.h writes one).  Nesting is bounded. */
#ifndef DEVCHECK_REPORT_JSON_H
#define DEVCHECK_REPORT_JSON_H
#include <stddef.h>

#pragma GCC visibility push(hidden)

enum dc_jtype { DC_J_NULL = 0, DC_J_BOOL, DC_J_NUM, DC_J_STR, DC_J_ARR, DC_J_OBJ };

struct dc_json {
    enum dc_jtype type;
    int b;                      /* DC_J_BOOL */
    double num;                 /* DC_J_NUM */
    long long i;                /* DC_J_NUM: the integer value when is_int */
    int is_int;
    char *s;                    /* DC_J_STR */
    size_t n;                   /* DC_J_ARR / DC_J_OBJ: entries */
    struct dc_json **items;     /* values */
    char **keys;                /* DC_J_OBJ: keys, parallel to items */
    size_t cap;                 /* allocated entries */
};

/* Parses text[0..len) (one whole value, white space around it allowed).
 * NULL on a syntax error or out of memory; *err_at (may be NULL) is then
 * the offset of the error. */
struct dc_json *dc_json_parse(const char *text, size_t len, size_t *err_at);
void dc_json_free(struct dc_json *v);
/* obj[key], NULL when v is not an object or has no such key. */
const struct dc_json *dc_json_get(const struct dc_json *v, const char *key);
/* The value as a string (NULL unless a string), an integer (dflt unless an
 * integer), the array's i-th item (NULL). */
const char *dc_json_str(const struct dc_json *v);
long long dc_json_int(const struct dc_json *v, long long dflt);
const struct dc_json *dc_json_at(const struct dc_json *v, size_t i);
size_t dc_json_len(const struct dc_json *v);    /* items of an array, 0 otherwise */

#pragma GCC visibility pop
#endif
