/* See report/mgpus.h. */
#include "report/mgpus.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct dc_json *dc_mgpus_entry(const struct dc_json *r, int dev)
{
    const struct dc_json *g = dc_json_get(r, "gpus");
    for (size_t i = 0; dev >= 0 && i < dc_json_len(g); i++) {
        const struct dc_json *e = dc_json_at(g, i);
        if (dc_json_int(dc_json_get(e, "device"), -9) == dev && dc_json_str(dc_json_get(e, "uuid")))
            return e;
    }
    return NULL;
}

/* The index in g->v of ordinal dev of the process that wrote r (a merged
 * summary's GPUs name their own host), with add a new one when none
 * matches; -1 when none. */
static int find(struct dc_mgpus *g, const struct dc_json *r, int dev, int add)
{
    const struct dc_json *e = dc_mgpus_entry(r, dev);
    const char *uuid = e ? dc_json_str(dc_json_get(e, "uuid")) : NULL;
    const char *host = dc_json_str(dc_json_get(e, "host"));
    if (!host)
        host = dc_json_str(dc_json_get(r, "host"));
    host = host ? host : "";
    for (size_t i = 0; i < g->n; i++) {
        const struct dc_mgpu *x = &g->v[i];
        if (!strcmp(x->host, host) && (uuid ? x->uuid && !strcasecmp(x->uuid, uuid) : !x->uuid && x->ordinal == dev)) {
            if (add && x->ordinal != dev)
                g->renumbered = 1;              /* one GPU, two ordinals */
            return (int)i;
        }
    }
    if (!add)
        return -1;
    for (size_t i = 0; i < g->n; i++)
        if (g->v[i].ordinal == dev)
            g->renumbered = 1;                  /* one ordinal, two GPUs */
    struct dc_mgpu *nv = realloc(g->v, (g->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    g->v = nv;
    nv[g->n++] = (struct dc_mgpu){ host, uuid, e ? dc_json_str(dc_json_get(e, "pci_bus_id")) : NULL, dev };
    return (int)g->n - 1;
}

void dc_mgpus_begin(struct dc_mgpus *g, int any)
{
    memset(g, 0, sizeof *g);
    if (any)
        g->v = calloc(1, sizeof *g->v);         /* non-NULL: the table is on */
}

static void note(struct dc_mgpus *g, const struct dc_json *r, long long dev)
{
    if (dev >= 0 && dev < 1 << 20)
        (void)find(g, r, (int)dev, 1);
}

void dc_mgpus_note(struct dc_mgpus *g, const struct dc_json *r, int summary)
{
    if (!g->v)
        return;
    if (!summary) {
        note(g, r, dc_json_int(dc_json_get(dc_json_get(r, "launch"), "device"), -9));
        note(g, r, dc_json_int(dc_json_get(dc_json_get(r, "operand"), "owner_device"), -9));
        return;
    }
    static const char *const cells[][2] = { { "access", "launch_device" }, { "access", "owner" },
                                            { "transfers", "src" }, { "transfers", "dst" } };
    for (size_t c = 0; c < sizeof cells / sizeof cells[0]; c++) {
        const struct dc_json *a = dc_json_get(r, cells[c][0]);
        for (size_t j = 0; j < dc_json_len(a); j++)
            note(g, r, dc_json_int(dc_json_get(dc_json_at(a, j), cells[c][1]), -9));
    }
    const struct dc_json *l = dc_json_get(r, "gpus");
    for (size_t j = 0; j < dc_json_len(l); j++)
        note(g, r, dc_json_int(dc_json_get(dc_json_at(l, j), "device"), -9));
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }
static int by_gpu(const void *a, const void *b)
{
    const struct dc_mgpu *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    if (!c)
        c = (!x->uuid) - (!y->uuid);            /* the GPUs named by UUID first */
    if (!c)
        c = cmp_str(x->pci, y->pci);
    if (!c)
        c = cmp_str(x->uuid, y->uuid);
    return c ? c : x->ordinal - y->ordinal;
}
static int by_ordinal(const void *a, const void *b)
{
    return ((const struct dc_mgpu *)a)->ordinal - ((const struct dc_mgpu *)b)->ordinal;
}

void dc_mgpus_sort(struct dc_mgpus *g)
{
    if (g->n)                   /* the numbers do not depend on the files' order */
        qsort(g->v, g->n, sizeof *g->v, g->renumbered ? by_gpu : by_ordinal);
}

int dc_mgpus_number(const struct dc_mgpus *g, const struct dc_json *r, int dev)
{
    if (dev < 0 || !g->v || !g->renumbered)
        return dev;
    int i = find((struct dc_mgpus *)g, r, dev, 0);      /* no add: nothing is written */
    return i < 0 ? -9 : i;
}

void dc_mgpus_json(const struct dc_mgpus *g, struct dc_sbuf *o)
{
    for (size_t i = 0; i < g->n; i++) {
        const struct dc_mgpu *x = &g->v[i];
        dc_sput(o, "%s{\"device\":%d,\"host\":", i ? "," : ",\"gpus\":[", g->renumbered ? (int)i : x->ordinal);
        dc_sjson_str(o, x->host);
        dc_sput(o, ",\"uuid\":");
        dc_sjson_str(o, x->uuid);
        dc_sput(o, ",\"pci_bus_id\":");
        dc_sjson_str(o, x->pci);
        dc_sput(o, "}%s", i + 1 == g->n ? "]" : "");
    }
}

void dc_mgpus_text(const struct dc_json *r, struct dc_sbuf *o)
{
    const struct dc_json *l = dc_json_get(r, "gpus");
    const char *host = dc_json_str(dc_json_get(r, "host"));
    int shown = 0;
    for (size_t i = 0; i < dc_json_len(l); i++) {
        const struct dc_json *e = dc_json_at(l, i);
        const char *uuid = dc_json_str(dc_json_get(e, "uuid")), *pci = dc_json_str(dc_json_get(e, "pci_bus_id"));
        if (!uuid && !pci)
            continue;
        dc_sput(o, "%scuda:%lld = %s", shown++ ? ", " : "    GPUs: ", dc_json_int(dc_json_get(e, "device"), -1),
                uuid ? uuid : "?");
        if (pci)
            dc_sput(o, " (%s)", pci);
    }
    if (shown)
        dc_sput(o, "%s%s\n", host && *host ? " on " : "", host && *host ? host : "");
}

void dc_mgpus_free(struct dc_mgpus *g)
{
    free(g->v);
    memset(g, 0, sizeof *g);
}
