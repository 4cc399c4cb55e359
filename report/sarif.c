/* sarif: the merged model as SARIF 2.1.0, as GitHub code scanning takes it
 * (report/FORMAT.md, "SARIF"): one run, tool.driver with one rule per
 * finding kind (stable ids: the kind names), one result per merged finding
 * (ruleId, level, message, the launch site as physicalLocation relative to
 * the source root, the allocation site as a related location,
 * partialFingerprints from the fingerprint).  Within GitHub's published
 * limits: at most 5,000 results (errors first), one location and at most
 * two related locations per result, fewer than 20 tags per rule. */
#include "report/sarif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SARIF_RESULTS_MAX 5000

static const struct rule {
    const char *id, *name, *level, *short_text, *full_text, *help;
} rules[] = {
    { "device_mismatch", "DeviceMismatch", "error",
      "A kernel received memory its launch device may not access",
      "An operand of a kernel launched on one GPU points into memory owned by another GPU, and the launch device has "
      "no access to it (no peer access, no cuMemSetAccess grant, no pool access). On real hardware this faults with "
      "an illegal memory access, reported later at an unrelated call.",
      "Move the operand to the launch device before the launch (cudaMemcpyPeer, tensor.to(device)), or enable peer "
      "access (cudaDeviceEnablePeerAccess) / grant access (cuMemSetAccess, cudaMemPoolSetAccess)." },
    { "peer_access", "PeerAccess", "warning",
      "A kernel reads another GPU's memory over peer access",
      "An operand lives on another GPU that the launch device may legally access (peer access enabled or access "
      "granted): correct, but every access crosses NVLink or PCIe.",
      "Copy the data to the launch device once if the kernel reads it repeatedly; peer=ignore silences this." },
    { "host_memory", "HostMemory", "error",
      "A kernel received host memory",
      "An operand points into host memory: pinned or registered host memory is legal but slow (a warning); "
      "pageable host memory cannot be read by the device unless it reports pageable memory access (an error).",
      "Copy the data to the device (cudaMemcpy, tensor.to(device)) or allocate it with cudaMallocHost or "
      "cudaMallocManaged." },
    { "stream_mismatch", "StreamMismatch", "error",
      "A kernel was launched into a stream of another device",
      "Runtime API: a kernel was launched into a stream created on another device than the thread's current one; "
      "CUDA refuses such a launch.",
      "Call cudaSetDevice for the stream's device before the launch, or launch into a stream of the current "
      "device." },
    { "unchecked_kernel", "UncheckedKernel", "note",
      "A kernel's parameters could not be checked",
      "No parameter layout was available for this kernel (cuFuncGetParamInfo needs driver 12.4 or newer), so its "
      "launches were counted but their operands not checked.",
      "Use a driver of version 12.4 or newer, or build the kernel so that its image carries its parameter table." },
    { "async_error", "AsyncError", "error",
      "A kernel failed on the device",
      "With sync=1 devcheck synchronised after the launch and the launch failed on the device (for example "
      "CUDA_ERROR_ILLEGAL_ADDRESS); its operands and their owners are in the message.",
      "An operand the launch device may not access is the usual cause: move it to the launch device." },
};
#define NRULES (sizeof rules / sizeof rules[0])

static int rule_index(const char *kind)
{
    for (size_t i = 0; i < NRULES; i++)
        if (kind && !strcmp(kind, rules[i].id))
            return (int)i;
    return -1;
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

/* "physicalLocation" of a site; 0 when the record has no frame with a file. */
static int physical(const struct dc_model *m, const struct dc_json *r, const char *which, struct dc_sbuf *o)
{
    const char *file;
    char rel[4096];
    int in_tree;
    const struct dc_json *fr = dc_model_site(m, r, which, &file, rel, sizeof rel, &in_tree);
    if (!fr || !file)
        return 0;
    dc_sput(o, "\"physicalLocation\":{\"artifactLocation\":{\"uri\":");
    if (in_tree) {
        put_uri(o, file);
        dc_sput(o, ",\"uriBaseId\":\"SRCROOT\"}");
    } else {
        char abs[4200];
        snprintf(abs, sizeof abs, "file://%s%s", file[0] == '/' ? "" : "/", file);
        put_uri(o, abs);
        dc_sput(o, "}");
    }
    long long line = dc_json_int(dc_json_get(fr, "line"), 0);
    if (line >= 1)
        dc_sput(o, ",\"region\":{\"startLine\":%lld}", line);
    dc_sput(o, "}");
    return 1;
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
    for (size_t i = 0; i < NRULES; i++) {
        const struct rule *ru = &rules[i];
        dc_sput(o, "%s{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":", i ? "," : "", ru->id, ru->name);
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
        dc_sjson_str(o, ri >= 0 ? rules[ri].id : kind);
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
        struct dc_sbuf rel = { 0 };
        if (physical(m, r, "alloc", &rel))
            dc_sput(o, ",\"relatedLocations\":[{\"id\":1,%s,\"message\":{\"text\":\"allocated here\"}}]", rel.p);
        dc_sfree(&rel);
        dc_sput(o, ",\"partialFingerprints\":{\"devcheckFinding/v1\":\"%s\"},\"occurrenceCount\":%llu", f->fp,
                (unsigned long long)(f->count ? f->count : 1));
        dc_sput(o, ",\"properties\":{\"kernel\":");
        dc_sjson_str(o, dc_json_str(dc_json_get(r, "kernel")));
        dc_sput(o, ",\"launchDevice\":%lld", dc_json_int(dc_json_get(dc_json_get(r, "launch"), "device"), -1));
        const struct dc_json *op = dc_json_get(r, "operand");
        if (op && op->type == DC_J_OBJ)
            dc_sput(o, ",\"ownerDevice\":%lld,\"memory\":", dc_json_int(dc_json_get(op, "owner_device"), -1)),
                dc_sjson_str(o, dc_json_str(dc_json_get(op, "memory")));
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
