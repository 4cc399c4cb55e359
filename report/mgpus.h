/* mgpus: the GPUs of merged processes, by host and UUID (report/merge.h's
 * model).  A record's "gpus" (report/gpus.h) names each device it mentions
 * by the process's own ordinal; two processes' cuda:0 can be two GPUs
 * (CUDA_VISIBLE_DEVICES), so the merge asks here which GPU an ordinal of a
 * record is.  A device of a record without its UUID is one GPU per host and
 * ordinal, as records without UUIDs merged before.  Strings are borrowed
 * from the records, which outlive the table. */
#ifndef DEVCHECK_REPORT_MGPUS_H
#define DEVCHECK_REPORT_MGPUS_H
#include <stddef.h>
#include "common/format.h"
#include "common/json.h"

#pragma GCC visibility push(hidden)

struct dc_mgpu {
    const char *host;
    const char *uuid, *pci;     /* NULL: not in the record */
    int ordinal;                /* the ordinal of the first process that named it */
};

/* Empty (v NULL) when no record named its GPUs.  When every process numbers
 * the GPUs alike (one host, one ordinal per GPU) the matrices' device numbers
 * stay the ordinals; otherwise (renumbered) they are indices of v, sorted by
 * host, PCI bus id and UUID. */
struct dc_mgpus {
    struct dc_mgpu *v;
    size_t n;
    int renumbered;
};

/* Device dev's entry in record r's "gpus" when it names its UUID, else NULL. */
const struct dc_json *dc_mgpus_entry(const struct dc_json *r, int dev);
/* Collecting: start (any: some record has "gpus"; else the table stays
 * empty), each record's devices (summary: its matrices' and its "gpus"; a
 * finding: its launch and owner devices), then sort. */
void dc_mgpus_begin(struct dc_mgpus *g, int any);
void dc_mgpus_note(struct dc_mgpus *g, const struct dc_json *r, int summary);
void dc_mgpus_sort(struct dc_mgpus *g);
/* The number the merged matrices give ordinal dev of the process that wrote
 * r: dev itself unless renumbered (and for the host columns, dev < 0); -9
 * when not collected. */
int dc_mgpus_number(const struct dc_mgpus *g, const struct dc_json *r, int dev);
/* ,"gpus":[{device, host, uuid, pci_bus_id}...] for the merged summary;
 * nothing when empty. */
void dc_mgpus_json(const struct dc_mgpus *g, struct dc_sbuf *o);
/* The merged text's line under a finding: "    GPUs: cuda:1 = GPU-... (0000:11:00.0), ... on HOST". */
void dc_mgpus_text(const struct dc_json *r, struct dc_sbuf *o);
void dc_mgpus_free(struct dc_mgpus *g);

#pragma GCC visibility pop
#endif
