/* sarif: the merged model as SARIF 2.1.0, as GitHub code scanning takes it
 * (report/FORMAT.md, "SARIF"): one run, tool.driver with one rule per
 * finding kind (report/kinds.def: stable ids, the kind names), one result
 * per merged finding (ruleId, level, the kind's headline as the message,
 * the launch site -- a framework error's op line -- as physicalLocation
 * relative to the source root; the allocation site and a framework error's
 * tensors, each at the line that allocated or made it, as related
 * locations; the Python frames as the code flow; partialFingerprints from
 * the fingerprint).  Within GitHub's published limits: at most 5,000
 * results (errors first), 100 related locations and 1,000 thread flow
 * locations per result, fewer than 20 tags per rule. */
#include "report/sarif.h"
#include "report/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SARIF_RESULTS_MAX 5000
#define SARIF_RELATED_MAX 100       /* GitHub keeps 100 locations per result */
#define SARIF_FLOW_MAX 1000         /* and 1,000 thread flow locations */

/* The rules are the kinds (report/kinds.def), in the enum's order: a
 * result's ruleIndex is its kind's. */
static int rule_index(const char *kind)
{
    const struct dc_kind_desc *d = dc_kind_by_id(kind);
    return d ? (int)d->kind : -1;
}

static const char *level_of(const struct dc_json *r)
{
    const char *s = dc_json_str(dc_json_get(r, "severity"));
    return !s ? "note" : !strcmp(s, "error") ? "error" : !strcmp(s, "warning") ? "warning" : "note";
}

/* A path as a URI reference: percent-encode what RFC 3986 does not allow. */
static void put_uri(struct dc_sbuf *o, const char *path)
{
    char tmp[8192];
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)path; *c && n + 4 < sizeof tmp; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr("/-._~!$&'()*+,;=:@", *c))
            tmp[n++] = (char)*c;
        else
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "%%%02X", *c);
    }
    tmp[n] = 0;
    dc_sjson_str(o, tmp);
}

/* "physicalLocation" of file:line (line < 1: none). */
static void physical_at(const struct dc_model *m, const char *file, long long line, struct dc_sbuf *o)
{
    char rel[4096];
    int in_tree = dc_model_relpath(m, file, rel, sizeof rel);
    dc_sput(o, "\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    if (in_tree) {
        put_uri(o, rel);
        dc_sput(o, ",\"uriBaseId\":\"SRCROOT\"}");
    } else {
        char abs[4200];
        snprintf(abs, sizeof abs, "file://%s%s", file[0] == '/' ? "" : "/", file);
        put_uri(o, abs);
        dc_sput(o, "}");
    }
    if (line >= 1)
        dc_sput(o, ",\"region\":{\"startLine\":%lld}", line);
    dc_sput(o, "}");
}

/* "physicalLocation" of a site; 0 when the record has no frame with a file. */
static int physical(const struct dc_model *m, const struct dc_json *r, const char *which, struct dc_sbuf *o)
{
    const char *file;
    char rel[4096];
    int in_tree;
    const struct dc_json *fr = dc_model_site(m, r, which, &file, rel, sizeof rel, &in_tree);
    const char *raw = fr ? dc_json_str(dc_json_get(fr, "file")) : NULL;
    if (!fr || !file || !raw)
        return 0;
    physical_at(m, raw, dc_json_int(dc_json_get(fr, "line"), 0), o);
    return 1;
}

/* relatedLocations: the allocation site (an operand's), and a framework
 * error's tensors, each at the line that allocated or made it. */
static void related(const struct dc_model *m, const struct dc_json *r, struct dc_sbuf *o)
{
    int id = 0;
    struct dc_sbuf rel = { 0 };
    if (physical(m, r, "alloc", &rel))
        dc_sput(o, ",\"relatedLocations\":[{\"id\":%d,%s,\"message\":{\"text\":\"allocated here\"}}", ++id, rel.p);
    dc_sfree(&rel);
    const struct dc_json *ts = dc_json_get(r, "tensors");
    for (size_t i = 0; i < dc_json_len(ts) && id < SARIF_RELATED_MAX; i++) {
        const struct dc_json *t = dc_json_at(ts, i);
        const char *what;
        const struct dc_json *site = dc_kind_tensor_site(t, &what);
        if (!site)
            continue;
        dc_sput(o, "%s{\"id\":%d,", id ? "," : ",\"relatedLocations\":[", id + 1);
        id++;
        physical_at(m, dc_json_str(dc_json_get(site, "file")), dc_json_int(dc_json_get(site, "line"), 0), o);
        struct dc_sbuf msg = { 0 };
        const char *expr = dc_json_str(dc_json_get(t, "expr")), *dev = dc_json_str(dc_json_get(t, "device"));
        dc_sput(&msg, "%s (%s) %s here", expr ? expr : "tensor", dev ? dev : "?", what);
        dc_sput(o, ",\"message\":{\"text\":");
        dc_sjson_str(o, msg.p ? msg.p : "");
        dc_sfree(&msg);
        dc_sput(o, "}}");
    }
    if (id)
        dc_sput(o, "]");
}

/* codeFlows: the Python frames of the launch (a framework error's op), the
 * outermost first as SARIF's threadFlow runs; frames without a file are
 * left out. */
static void code_flow(const struct dc_model *m, const struct dc_json *r, struct dc_sbuf *o)
{
    const struct dc_json *st = dc_json_get(r, "launch_python_stack");
    size_t n = dc_json_len(st), k = 0;
    for (size_t i = n; i-- > 0 && k < SARIF_FLOW_MAX;) {
        const struct dc_json *fr = dc_json_at(st, i);
        const char *file = dc_json_str(dc_json_get(fr, "file")), *fn = dc_json_str(dc_json_get(fr, "function"));
        if (!file || !*file)
            continue;
        dc_sput(o, "%s{\"location\":{", k++ ? "," : ",\"codeFlows\":[{\"threadFlows\":[{\"locations\":[");
        physical_at(m, file, dc_json_int(dc_json_get(fr, "line"), 0), o);
        dc_sput(o, ",\"message\":{\"text\":");
        dc_sjson_str(o, fn ? fn : "?");
        dc_sput(o, "}}}");
    }
    if (k)
        dc_sput(o, "]}]}]");
}

static int cmp_sev(const void *a, const void *b)
{
    const struct dc_mfinding *x = *(const struct dc_mfinding *const *)a, *y = *(const struct dc_mfinding *const *)b;
    const char *lx = level_of(x->rec), *ly = level_of(y->rec);
    int rx = !strcmp(lx, "error") ? 0 : !strcmp(lx, "warning") ? 1 : 2;
    int ry = !strcmp(ly, "error") ? 0 : !strcmp(ly, "warning") ? 1 : 2;
    if (rx != ry)
        return rx - ry;
    return x < y ? -1 : x > y;
}

void dc_model_sarif(const struct dc_model *m, struct dc_sbuf *o)
{
    dc_sput(o, "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{"
               "\"tool\":{\"driver\":{\"name\":\"devcheck\",\"semanticVersion\":\"0.1.0\",\"rules\":[");
    for (int i = 0; i < DC_F_KIND_COUNT; i++) {
        const struct dc_kind_desc *ru = dc_kind_desc((enum dc_finding_kind)i);
        dc_sput(o, "%s{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":", i ? "," : "", ru->id,
                ru->name);
        dc_sjson_str(o, ru->short_text);
        dc_sput(o, "},\"fullDescription\":{\"text\":");
        dc_sjson_str(o, ru->full_text);
        dc_sput(o, "},\"help\":{\"text\":");
        dc_sjson_str(o, ru->help);
        dc_sput(o, "},\"defaultConfiguration\":{\"level\":\"%s\"},"
                   "\"properties\":{\"tags\":[\"multi-gpu\",\"cuda\",\"correctness\"],\"precision\":\"high\"}}",
                ru->level);
    }
    dc_sput(o, "]}},\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":");
    char root[4200];
    snprintf(root, sizeof root, "file://%s/", strcmp(m->root, "/") ? m->root : "");
    put_uri(o, root);
    dc_sput(o, "}},\"columnKind\":\"unicodeCodePoints\",\"results\":[");

    const struct dc_mfinding **order = malloc((m->nf ? m->nf : 1) * sizeof *order);
    size_t n = 0;
    if (order) {
        for (size_t i = 0; i < m->nf; i++)
            order[n++] = &m->f[i];
        qsort(order, n, sizeof *order, cmp_sev);
    }
    if (n > SARIF_RESULTS_MAX)
        n = SARIF_RESULTS_MAX;
    for (size_t i = 0; i < n; i++) {
        const struct dc_mfinding *f = order[i];
        const struct dc_json *r = f->rec;
        const char *kind = dc_json_str(dc_json_get(r, "kind"));
        int ri = rule_index(kind);
        dc_sput(o, "%s{\"ruleId\":", i ? "," : "");
        dc_sjson_str(o, kind);
        if (ri >= 0)
            dc_sput(o, ",\"ruleIndex\":%d", ri);
        dc_sput(o, ",\"level\":\"%s\",\"message\":{\"text\":", level_of(r));
        struct dc_sbuf msg = { 0 };
        dc_model_message(r, &msg);
        const char *hint = dc_json_str(dc_json_get(r, "hint"));
        if (hint)
            dc_sput(&msg, ". Hint: %s", hint);
        dc_sjson_str(o, msg.p ? msg.p : "");
        dc_sfree(&msg);
        dc_sput(o, "},\"locations\":[");
        struct dc_sbuf loc = { 0 };
        if (physical(m, r, "launch", &loc)) {
            dc_sput(o, "{%s,\"message\":{\"text\":\"kernel launch\"}}", loc.p);
        }
        dc_sfree(&loc);
        dc_sput(o, "]");
        related(m, r, o);
        code_flow(m, r, o);
        dc_sput(o, ",\"partialFingerprints\":{\"devcheckFinding/v1\":\"%s\"},\"occurrenceCount\":%llu", f->fp,
                (unsigned long long)(f->count ? f->count : 1));
        dc_sput(o, ",\"properties\":{\"kernel\":");
        dc_sjson_str(o, dc_json_str(dc_json_get(r, "kernel")));
        dc_sput(o, ",\"launchDevice\":%lld", dc_json_int(dc_json_get(dc_json_get(r, "launch"), "device"), -1));
        const struct dc_json *op = dc_json_get(r, "operand");
        if (op && op->type == DC_J_OBJ)
            dc_sput(o, ",\"ownerDevice\":%lld,\"memory\":", dc_json_int(dc_json_get(op, "owner_device"), -1)),
                dc_sjson_str(o, dc_json_str(dc_json_get(op, "memory")));
        const struct dc_json *gpus = dc_json_get(r, "gpus");
        if (dc_json_len(gpus)) {        /* the devices as the machine knows them (report/gpus.h) */
            dc_sput(o, ",\"gpus\":");
            dc_json_write(gpus, o);
        }
        dc_sput(o, ",\"processes\":[");
        for (size_t k = 0; k < f->nshares; k++) {
            dc_sput(o, "%s{", k ? "," : "");
            dc_model_put_proc(o, f->shares[k].pid, f->shares[k].rank, f->shares[k].host);
            dc_sput(o, ",\"count\":%llu}", (unsigned long long)f->shares[k].count);
        }
        dc_sput(o, "]}}");
    }
    free(order);
    dc_sput(o, "],\"invocations\":[{\"executionSuccessful\":true}]}]}\n");
}
