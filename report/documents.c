/* documents: the whole documents written from a merged model (see
 * documents.h). */
#include "report/documents.h"
#include "report/html.h"
#include "report/junit.h"
#include "report/sarif.h"
#include "report/sinks.h"

int dc_model_write_documents(const struct dc_model *m, const char *sarif, const char *junit, const char *html,
                             const char *jsonl)
{
    struct {
        const char *what, *path;
        void (*fn)(const struct dc_model *, struct dc_sbuf *);
    } docs[] = {
        { "json_path", jsonl, dc_model_jsonl },
        { "sarif_path", sarif, dc_model_sarif },
        { "junit_path", junit, dc_model_junit },
        { "html_path", html, dc_model_html },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        if (!docs[i].path || !*docs[i].path)
            continue;
        struct dc_sbuf b = { 0 };
        docs[i].fn(m, &b);
        if (b.oom || !b.p || dc_sinks_write_document(docs[i].what, docs[i].path, b.p, b.len) != 0)
            bad++;
        dc_sfree(&b);
    }
    return bad;
}
