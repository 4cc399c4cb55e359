/* junit: the merged model as JUnit XML (report/FORMAT.md, "JUnit"): one
 * testsuite "devcheck", one uniquely named failing testcase per merged
 * finding (kind, kernel, parameter, devices, launch site; "#2", "#3" when
 * two findings would share a name), the text report as the failure's text;
 * a run without findings gives one passing testcase.  Follows the Apache Ant
 * schema (tests/schemas/JUnit.xsd) that Jenkins, GitLab and most CI readers
 * take. */
#include "report/junit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int junit_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); junit_oom = 1; } while (0)
#include <uthash.h>

struct name_ent {
    UT_hash_handle hh;
    char *name;
};

static void testcase_name(const struct dc_model *m, const struct dc_json *r, struct dc_sbuf *o)
{
    const char *kind = dc_json_str(dc_json_get(r, "kind"));
    const char *kernel = dc_json_str(dc_json_get(r, "kernel"));
    const struct dc_json *op = dc_json_get(r, "operand");
    long long dev = dc_json_int(dc_json_get(dc_json_get(r, "launch"), "device"), -1);
    dc_sput(o, "%s: %s", kind ? kind : "finding", kernel ? kernel : "<unknown kernel>");
    if (op && op->type == DC_J_OBJ) {
        long long owner = dc_json_int(dc_json_get(op, "owner_device"), -1);
        dc_sput(o, " param %lld+%lld (cuda:%lld <- ", dc_json_int(dc_json_get(op, "param"), -1),
                dc_json_int(dc_json_get(op, "word_offset"), 0), dev);
        if (owner >= 0)
            dc_sput(o, "cuda:%lld", owner);
        else
            dc_sput(o, "%s host", dc_json_str(dc_json_get(op, "memory")) ? dc_json_str(dc_json_get(op, "memory")) : "");
        dc_sput(o, ")");
    } else {
        dc_sput(o, " (cuda:%lld)", dev);
    }
    const char *file;
    char rel[4096];
    int in_tree;
    const struct dc_json *fr = dc_model_site(m, r, "launch", &file, rel, sizeof rel, &in_tree);
    if (fr && file)
        dc_sput(o, " at %s:%lld", file, dc_json_int(dc_json_get(fr, "line"), 0));
    else if (fr && dc_json_str(dc_json_get(fr, "function")))
        dc_sput(o, " in %s", dc_json_str(dc_json_get(fr, "function")));
    const char *action = dc_json_str(dc_json_get(r, "action"));
    if (action && strcmp(action, "reported"))
        dc_sput(o, " [%s]", action);
}

void dc_model_junit(const struct dc_model *m, struct dc_sbuf *o)
{
    char host[256] = "localhost", stamp[32];
    if (m->nprocs && m->procs[0].host[0])
        snprintf(host, sizeof host, "%s", m->procs[0].host);
    else if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "localhost");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    size_t tests = m->nf ? m->nf : 1;
    dc_sput(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
               "  <testsuite package=\"devcheck\" id=\"0\" name=\"devcheck\" timestamp=\"%s\" hostname=\"", stamp);
    dc_sxml_str(o, host);
    dc_sput(o, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\">\n    <properties>\n", tests,
            m->nf);
    dc_sput(o, "      <property name=\"processes\" value=\"%zu\"/>\n", m->nprocs);
    dc_sput(o, "      <property name=\"launches_checked\" value=\"%llu\"/>\n",
            (unsigned long long)m->totals.launches_checked);
    dc_sput(o, "    </properties>\n");
    if (!m->nf)
        dc_sput(o, "    <testcase classname=\"devcheck\" name=\"devcheck: no device placement findings\" time=\"0\"/>\n");
    struct name_ent *names = NULL;
    for (size_t i = 0; i < m->nf; i++) {
        const struct dc_mfinding *f = &m->f[i];
        const struct dc_json *r = f->rec;
        struct dc_sbuf name = { 0 };
        testcase_name(m, r, &name);
        if (!name.p)
            continue;
        size_t base = name.len;
        for (int k = 2;; k++) {
            struct name_ent *e;
            HASH_FIND_STR(names, name.p, e);
            if (!e)
                break;
            name.len = base;
            name.p[base] = 0;
            dc_sput(&name, " #%d", k);
        }
        struct name_ent *e = calloc(1, sizeof *e);
        if (e && (e->name = strdup(name.p)) != NULL) {
            junit_oom = 0;
            HASH_ADD_KEYPTR(hh, names, e->name, strlen(e->name), e);
            if (junit_oom) {
                free(e->name);
                free(e);
            }
        } else {
            free(e);
        }
        const char *kind = dc_json_str(dc_json_get(r, "kind"));
        dc_sput(o, "    <testcase classname=\"devcheck.%s\" name=\"", kind ? kind : "finding");
        dc_sxml_str(o, name.p);
        dc_sput(o, "\" time=\"0\">\n      <failure type=\"");
        dc_sxml_str(o, kind ? kind : "finding");
        dc_sput(o, "\" message=\"");
        struct dc_sbuf msg = { 0 };
        dc_model_message(r, &msg);
        dc_sxml_str(o, msg.p);
        dc_sfree(&msg);
        dc_sput(o, "\">");
        struct dc_sbuf text = { 0 };
        dc_model_text(m, f, &text);
        dc_sxml_str(o, text.p);
        dc_sfree(&text);
        dc_sput(o, "</failure>\n    </testcase>\n");
        dc_sfree(&name);
    }
    struct name_ent *e, *tmp;
    HASH_ITER(hh, names, e, tmp) {
        HASH_DEL(names, e);
        free(e->name);
        free(e);
    }
    dc_sput(o, "    <system-out>");
    char line[1024];
    struct dc_buf b = { line, sizeof line, 0, 0 };
    dc_text_summary_for_model(m, &b);
    dc_sxml_str(o, line);
    dc_sput(o, "</system-out>\n    <system-err></system-err>\n  </testsuite>\n</testsuites>\n");
}
