/* Fuzz target: the JSON reader (common/json.c) and the JSON Lines merge of
 * `devcheck report` (report/merge.c).  Invariants: a value that parses is
 * written back (dc_json_write) as valid UTF-8 that parses again to the same
 * text (a fixed point: raw bytes survive as \udcXX); every line of the
 * input goes to the model, whose merged JSON Lines are each valid JSON and
 * UTF-8 again, and whose text reports are terminated. */
#include "tests/fuzz/fuzz.h"
#include "common/format.h"
#include "common/json.h"
#include "report/merge.h"

static void roundtrip(const char *text, size_t len)
{
    struct dc_json *v = dc_json_parse(text, len, NULL);
    if (!v)
        return;
    struct dc_sbuf a = { 0 }, b = { 0 };
    dc_json_write(v, &a);
    dc_json_free(v);
    if (a.oom || !a.p) {
        dc_sfree(&a);
        return;
    }
    FUZZ_CHECK(dc_utf8_valid(a.p, a.len));
    struct dc_json *w = dc_json_parse(a.p, a.len, NULL);
    FUZZ_CHECK(w != NULL);
    dc_json_write(w, &b);
    dc_json_free(w);
    FUZZ_CHECK(b.oom || (b.len == a.len && !memcmp(a.p, b.p, a.len)));
    dc_sfree(&a);
    dc_sfree(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    roundtrip((const char *)data, size);
    struct dc_model *m = dc_model_new("/src");
    if (!m)
        return 0;
    long lineno = 0;
    for (size_t at = 0; at < size;) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t n = nl ? (size_t)(nl - (data + at)) : size - at;
        char *line = malloc(n ? n : 1);                     /* exactly the line: ASan sees an overread */
        if (!line)
            break;
        memcpy(line, data + at, n);
        char why[256];
        if (n)
            dc_model_add(m, line, n, "fuzz", ++lineno, why, sizeof why);
        free(line);
        roundtrip((const char *)data + at, n);
        at += n + 1;
    }
    dc_model_merge(m);
    struct dc_sbuf out = { 0 };
    dc_model_jsonl(m, &out);
    if (!out.oom && out.p) {
        FUZZ_CHECK(dc_utf8_valid(out.p, out.len));
        for (char *s = out.p; *s;) {
            char *e = strchr(s, '\n');
            size_t n = e ? (size_t)(e - s) : strlen(s);
            struct dc_json *v = dc_json_parse(s, n, NULL);
            FUZZ_CHECK(v != NULL);
            dc_json_free(v);
            s += n + (e != NULL);
        }
    }
    dc_sfree(&out);
    for (size_t i = 0; i < m->nf; i++) {
        struct dc_sbuf t = { 0 };
        dc_model_text(m, &m->f[i], &t);
        FUZZ_CHECK(t.oom || !t.p || strlen(t.p) == t.len);
        dc_sfree(&t);
    }
    dc_model_free(m);
    return 0;
}
