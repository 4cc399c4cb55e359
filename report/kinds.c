/* kinds: the table of finding kinds (kinds.def) and the headline and
 * details every merged sink writes of a record (see kinds.h). */
#include "report/kinds.h"

#include <string.h>

static const struct dc_kind_desc descs[DC_F_KIND_COUNT] = {
#define DC_KIND(E, id_, name_, level_, shape_, s_, f_, h_) \
    [DC_F_##E] = { DC_F_##E, #id_, #name_, #level_, DC_SHAPE_##shape_, s_, f_, h_ },
#include "report/kinds.def"
#undef DC_KIND
};

const struct dc_kind_desc *dc_kind_desc(enum dc_finding_kind k)
{
    return (unsigned)k < DC_F_KIND_COUNT ? &descs[k] : NULL;
}

const struct dc_kind_desc *dc_kind_by_id(const char *id)
{
    for (size_t i = 0; id && i < DC_F_KIND_COUNT; i++)
        if (!strcmp(id, descs[i].id))
            return &descs[i];
    return NULL;
}

static const char *memory_phrase(const char *mem)
{
    if (!mem)
        return "unknown";
    if (!strcmp(mem, "pageable"))
        return "pageable host";
    if (!strcmp(mem, "pinned"))
        return "pinned host";
    if (!strcmp(mem, "registered"))
        return "registered host";
    return mem;
}

static const char *str(const struct dc_json *v, const char *key)
{
    return dc_json_str(dc_json_get(v, key));
}

/* ": param 1 (word +0) is device memory owned by cuda:1 (access)" */
static void operand_phrase(const struct dc_json *op, struct dc_sbuf *o)
{
    long long owner = dc_json_int(dc_json_get(op, "owner_device"), -1);
    long long param = dc_json_int(dc_json_get(op, "param"), -1);
    const char *acc = str(op, "access");
    const char *name = str(op, "param_name");
    if (param >= 0 && name)
        dc_sput(o, "param %lld %s (word +%lld) is ", param, name, dc_json_int(dc_json_get(op, "word_offset"), 0));
    else if (param >= 0)
        dc_sput(o, "param %lld (word +%lld) is ", param, dc_json_int(dc_json_get(op, "word_offset"), 0));
    else
        dc_sput(o, "argument buffer +%lld is ", dc_json_int(dc_json_get(op, "word_offset"), 0));
    dc_sput(o, "%s memory", memory_phrase(str(op, "memory")));
    if (owner >= 0)
        dc_sput(o, " owned by cuda:%lld", owner);
    if (acc && *acc)
        dc_sput(o, " (%s)", acc);
}

/* "kernel K" or, for a library call checked at its API, "call API" */
static void subject(const struct dc_json *r, struct dc_sbuf *o)
{
    const char *api = str(r, "api"), *kernel = str(r, "kernel");
    if (!kernel && dc_json_get(r, "argument") && api)
        dc_sput(o, "call %s", api);
    else
        dc_sput(o, "kernel %s", kernel ? kernel : "<unknown kernel>");
}

void dc_kind_headline(const struct dc_json *r, struct dc_sbuf *o)
{
    const char *kind = str(r, "kind");
    const struct dc_kind_desc *d = dc_kind_by_id(kind);
    const struct dc_json *l = dc_json_get(r, "launch"), *op = dc_json_get(r, "operand");
    int dev = (int)dc_json_int(dc_json_get(l, "device"), -1);
    dc_sput(o, "%s: ", kind ? kind : "finding");
    enum dc_kind_shape shape = d ? d->shape : DC_SHAPE_OPERAND;
    if (shape != DC_SHAPE_FRAMEWORK && shape != DC_SHAPE_REFUSED) {
        subject(r, o);
        dc_sput(o, " ");
    }
    switch (shape) {
    case DC_SHAPE_STREAM:
        dc_sput(o, "launched into a stream of cuda:%lld while the current device is cuda:%lld",
                dc_json_int(dc_json_get(r, "stream_device"), dev), dc_json_int(dc_json_get(r, "current_device"), -1));
        break;
    case DC_SHAPE_UNCHECKED:
        dc_sput(o, "launched on cuda:%d: parameter layout unknown, operands not checked", dev);
        break;
    case DC_SHAPE_ASYNC:
        dc_sput(o, "launched on cuda:%d failed on the device: %s", dev, str(r, "error") ? str(r, "error") : "?");
        break;
    case DC_SHAPE_FRAMEWORK:
    case DC_SHAPE_REFUSED: {
        const char *fw = str(r, "framework");
        if (shape == DC_SHAPE_REFUSED) {
            long long param = dc_json_int(dc_json_get(r, "param"), -1);
            dc_sput(o, "%s refused a pointer of cuda:%lld with cuda:%lld current", fw ? fw : "the framework",
                    dc_json_int(dc_json_get(r, "owner_device"), -1),
                    dc_json_int(dc_json_get(l, "current_device"), -1));
            if (param >= 0)
                dc_sput(o, " (parameter %lld)", param);
        } else {
            dc_sput(o, "%s refused an op over devices", fw ? fw : "the framework");
        }
        const char *msg = str(r, "message");
        if (msg) {              /* the message's first line (torch's are one line) */
            size_t n = strcspn(msg, "\n");
            dc_sput(o, ": ");
            dc_sputn(o, msg, n);
        }
        break;
    }
    case DC_SHAPE_OPERAND:
        dc_sput(o, "launched on cuda:%d", dev);
        break;
    }
    if (op && op->type == DC_J_OBJ) {
        dc_sput(o, ": ");
        operand_phrase(op, o);
    }
    const struct dc_json *pe = dc_json_get(r, "peer_enabled_by");  /* the text's "peer access: ... enabled by" */
    if (pe && pe->type == DC_J_OBJ) {
        const char *by = str(pe, "by"), *call = str(pe, "call");
        const struct dc_json *at = dc_json_get(pe, "at");
        int torch = by && !strcmp(by, "pytorch");
        dc_sput(o, "; peer access enabled by %s", torch ? "PyTorch itself, for a copy between the GPUs"
                                                   : call ? call : "the program");
        if (torch && call)
            dc_sput(o, " (%s)", call);
        if (str(at, "file"))
            dc_sput(o, " at %s:%lld in %s", str(at, "file"), dc_json_int(dc_json_get(at, "line"), 0),
                    str(at, "function") ? str(at, "function") : "?");
    }
    const char *action = str(r, "action");
    if (action && strcmp(action, "reported"))
        dc_sput(o, "; %s", action);
}

const struct dc_json *dc_kind_tensor_site(const struct dc_json *t, const char **what)
{
    const struct dc_json *a = dc_json_get(t, "alloc_at"), *m = dc_json_get(t, "made_at");
    if (str(a, "file")) {
        *what = dc_json_get(t, "alloc_segment") ? "in a segment allocated" : "allocated";
        return a;
    }
    if (str(m, "file")) {
        *what = "made";
        return m;
    }
    *what = NULL;
    return NULL;
}

static void site_line(const struct dc_json *at, struct dc_sbuf *o,
                      const char *(*show)(void *, const char *, char *, size_t), void *ctx)
{
    char buf[4096];
    const char *file = str(at, "file"), *fn = str(at, "function");
    dc_sput(o, "%s:%lld", show ? show(ctx, file, buf, sizeof buf) : file, dc_json_int(dc_json_get(at, "line"), 0));
    if (fn)
        dc_sput(o, " in %s", fn);
}

void dc_kind_details(const struct dc_json *r, struct dc_sbuf *o,
                     const char *(*show)(void *ctx, const char *file, char *buf, size_t len), void *ctx)
{
    const struct dc_kind_desc *d = dc_kind_by_id(str(r, "kind"));
    if (!d)
        return;
    switch (d->shape) {
    case DC_SHAPE_FRAMEWORK:
    case DC_SHAPE_REFUSED: {
        const char *msg = str(r, "message");
        const struct dc_json *at = dc_json_get(r, "at");
        if (msg && strchr(msg, '\n'))         /* the headline has its first line */
            dc_sput(o, "    %s's message: %s\n", str(r, "framework") ? str(r, "framework") : "framework", msg);
        if (str(at, "file")) {
            dc_sput(o, "    at ");
            site_line(at, o, show, ctx);
            if (str(at, "source"))
                dc_sput(o, ": %s", str(at, "source"));
            dc_sput(o, "\n");
        }
        const struct dc_json *ts = dc_json_get(r, "tensors");
        dc_sput(o, "    tensors:%s\n", dc_json_len(ts) ? "" : " (none found in the failing frame)");
        for (size_t i = 0; i < dc_json_len(ts); i++) {
            const struct dc_json *t = dc_json_at(ts, i);
            const char *what, *expr = str(t, "expr"), *dev = str(t, "device");
            const struct dc_json *site = dc_kind_tensor_site(t, &what);
            dc_sput(o, "      %s: %s", expr ? expr : "?", dev ? dev : "?");
            if (site) {
                dc_sput(o, ", %s at ", what);
                site_line(site, o, show, ctx);
            }
            dc_sput(o, "\n");
        }
        break;
    }
    case DC_SHAPE_ASYNC: {
        const struct dc_json *ops = dc_json_get(r, "operands");
        if (dc_json_len(ops))
            dc_sput(o, "    operands:\n");
        for (size_t i = 0; i < dc_json_len(ops); i++) {
            dc_sput(o, "      ");
            operand_phrase(dc_json_at(ops, i), o);
            dc_sput(o, "\n");
        }
        break;
    }
    case DC_SHAPE_UNCHECKED:
        if (str(r, "reason"))
            dc_sput(o, "    why: %s\n", str(r, "reason"));
        break;
    case DC_SHAPE_OPERAND:
    case DC_SHAPE_STREAM:
        break;
    }
}
