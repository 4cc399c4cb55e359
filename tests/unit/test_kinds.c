/* Every finding kind through every merged sink (issue 41): one finding of
 * each kind of report/kinds.def, written by the report as a process writes
 * it, read back and merged, then written as SARIF, JUnit, HTML and
 * `devcheck report`'s text.  Each sink must carry the kind's own facts:
 *  - SARIF: a rule for every kind; each result's ruleId is a rule, its
 *    message the kind's fact; a framework error's tensors are related
 *    locations at their lines and the op's Python frames the code flow;
 *  - JUnit: a testcase of class devcheck.<kind> whose message and text
 *    carry the fact (a framework error: torch's message, each tensor's line);
 *  - HTML: the finding's headline and report in the page's data;
 *  - the text: the fact, and a framework error's tensors and hint.
 * A kind added to kinds.def without a case below fails the build (-Wswitch).
 * Usage: test_kinds [OUTDIR] (default: a new directory under /tmp) */
#include "report/finding.h"
#include "report/html.h"
#include "report/junit.h"
#include "report/kinds.h"
#include "report/merge.h"
#include "report/report.h"
#include "report/sarif.h"
#include "tests/unit/unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *torch_msg = "Expected all tensors to be on the same device, but found at least two devices, "
                               "cuda:0 and cuda:1! (when checking argument for argument tensors in method "
                               "wrapper_CUDA_cat)";

/* The finding of kind k, and the fact every sink must show for it. */
static const char *make(enum dc_finding_kind k, struct dc_finding *f, struct dc_finding_launch *l)
{
    static const struct dc_tensor tensors[] = {
        { .expr = "image_features", .device = "cuda:1",
          .made = { "/src/vlm.py", 7, "merge", NULL } },
        { .expr = "inputs_embeds", .device = "cuda:0",
          .made = { "/src/vlm.py", 5, "merge", NULL } },
    };
    static const struct dc_pyloc ops[] = {
        { "/src/vlm.py", 9, "merge", "x = torch.cat([inputs_embeds, image_features])" },
        { "/src/vlm.py", 20, "<module>", "merge()" },
    };
    static const struct dc_opnd opnds[] = {
        { .param = 0, .address = 0x2000, .alloc_known = 1, .accessible = 0,
          .alloc = { .base = 0x2000, .size = 64, .kind = DC_MEM_DEVICE, .owner = 1 } },
    };
    memset(f, 0, sizeof *f);
    *l = (struct dc_finding_launch){ .kernel = "concat_kernel", .api = "cuLaunchKernel", .device = 0,
                                     .current_device = -1 };
    f->kind = k;
    f->severity = DC_SEV_ERROR;
    f->launch = l;
    f->launch_stack_in_key = 1;
    switch (k) {
    case DC_F_DEVICE_MISMATCH:
    case DC_F_PEER_ACCESS:
    case DC_F_HOST_MEMORY:
        f->has_operand = 1;
        f->param = 1;
        f->address = 0x1000;
        f->alloc_known = k != DC_F_HOST_MEMORY;
        f->alloc = (struct dc_finding_alloc){ .base = 0x1000, .size = 64, .kind = DC_MEM_DEVICE, .owner = 1 };
        f->access = k == DC_F_PEER_ACCESS ? "peer access enabled" : k == DC_F_DEVICE_MISMATCH ? "no peer access" : "";
        if (k == DC_F_PEER_ACCESS)
            f->severity = DC_SEV_WARNING;
        return k == DC_F_PEER_ACCESS ? "param 1 (word +0) is device memory owned by cuda:1 (peer access enabled)"
             : k == DC_F_HOST_MEMORY ? "param 1 (word +0) is pageable host memory"
             : "param 1 (word +0) is device memory owned by cuda:1 (no peer access)";
    case DC_F_STREAM_MISMATCH:
        l->device = 1;
        l->current_device = 0;
        return "launched into a stream of cuda:1 while the current device is cuda:0";
    case DC_F_UNCHECKED_KERNEL:
        f->severity = DC_SEV_INFO;
        f->launch_stack_in_key = 0;
        f->reason = "no parameter layout";
        return "parameter layout unknown";
    case DC_F_ASYNC_ERROR:
        f->error = "CUDA_ERROR_ILLEGAL_ADDRESS";
        f->ops = opnds;
        f->nops = 1;
        return "failed on the device: CUDA_ERROR_ILLEGAL_ADDRESS";
    case DC_F_FRAMEWORK_DEVICE_ERROR:
        l->kernel = NULL;
        l->api = "torch";
        f->framework = "torch";
        f->message = torch_msg;
        f->tensors = tensors;
        f->ntensors = 2;
        f->pylocs = ops;
        f->npylocs = 2;
        f->fix = "image_features = image_features.to(inputs_embeds.device)";
        return torch_msg;
    case DC_F_POINTER_REFUSED:          /* Triton's launcher, x of cuda:1 with cuda:0 current */
        l->kernel = NULL;
        l->api = "triton";
        l->device = 0;                  /* the current device; the owner is owner_device */
        l->current_device = 0;
        f->owner_device = 1;
        f->framework = "triton";
        f->message = "Pointer argument cannot be accessed from Triton (cpu tensor?)";
        f->param = 0;
        f->address = 0x7f0000200000;
        f->tensors = tensors;
        f->ntensors = 1;
        f->pylocs = ops;
        f->npylocs = 2;
        f->fix = "with torch.cuda.device(image_features.device): launch the kernel there";
        return "triton refused a pointer of cuda:1 with cuda:0 current (parameter 0): Pointer argument cannot be "
               "accessed from Triton (cpu tensor?)";
    case DC_F_KIND_COUNT:
        break;
    }
    return NULL;
}

static char *doc(const struct dc_model *m, void (*fn)(const struct dc_model *, struct dc_sbuf *))
{
    struct dc_sbuf b = { 0 };
    fn(m, &b);
    return b.p;
}

int main(int argc, char **argv)
{
    const char *outdir = unit_outdir("test_kinds", argc > 1 ? argv[1] : NULL);
    char json[4096], log[4096];
    snprintf(json, sizeof json, "%s/kinds.json", outdir);
    snprintf(log, sizeof log, "%s/kinds.log", outdir);
    struct dc_report_config rc = { .json_path = json, .log_path = log, .print_limit = 100 };
    dc_report_reset();
    dc_report_init(&rc);
    const char *fact[DC_F_KIND_COUNT];
    for (int k = 0; k < DC_F_KIND_COUNT; k++) {
        struct dc_finding f;
        struct dc_finding_launch l;
        fact[k] = make((enum dc_finding_kind)k, &f, &l);
        CHECK(fact[k] != NULL);
        CHECK(dc_kind_desc((enum dc_finding_kind)k) != NULL);
        dc_report_finding(&f);
    }
    dc_report_finish();

    struct dc_model *m = dc_model_new("/src");
    CHECK(m != NULL);
    if (!m)
        return unit_done("test_kinds");
    CHECK_EQ_LL(dc_model_add_file(m, json, NULL, NULL), 0);
    dc_model_merge(m);
    CHECK_EQ_LL(m->nf, DC_F_KIND_COUNT);
    char *sarif = doc(m, dc_model_sarif), *junit = doc(m, dc_model_junit), *html = doc(m, dc_model_html);
    CHECK(sarif && junit && html);
    if (!sarif || !junit || !html)
        return unit_done("test_kinds");
    for (int k = 0; k < DC_F_KIND_COUNT; k++) {
        const struct dc_kind_desc *d = dc_kind_desc((enum dc_finding_kind)k);
        char want[512];
        /* SARIF: the rule, and a result under it */
        snprintf(want, sizeof want, "{\"id\":\"%s\",\"name\":\"%s\"", d->id, d->name);
        CHECK_STR_CONTAINS(sarif, want);
        snprintf(want, sizeof want, "{\"ruleId\":\"%s\",\"ruleIndex\":%d", d->id, k);
        CHECK_STR_CONTAINS(sarif, want);
        /* JUnit: the testcase of the kind */
        snprintf(want, sizeof want, "<testcase classname=\"devcheck.%s\"", d->id);
        CHECK_STR_CONTAINS(junit, want);
        /* every sink: the kind's fact (in the headline of its record) */
        const struct dc_mfinding *mf = NULL;
        for (size_t i = 0; i < m->nf; i++)
            if (!strcmp(dc_json_str(dc_json_get(m->f[i].rec, "kind")), d->id))
                mf = &m->f[i];
        CHECK(mf != NULL);
        if (!mf)
            continue;
        struct dc_sbuf head = { 0 }, text = { 0 };
        dc_model_message(mf->rec, &head);
        dc_model_text(m, mf, &text);
        CHECK(head.p && text.p);
        if (!head.p || !text.p)
            continue;
        CHECK_STR_CONTAINS(head.p, fact[k]);
        CHECK_STR_CONTAINS(text.p, fact[k]);
        struct dc_sbuf js = { 0 };              /* as SARIF and HTML's data hold it */
        dc_sjson_str(&js, head.p);
        js.p[js.len - 1] = 0;                   /* without the closing quote: "... Hint: " may follow */
        CHECK_STR_CONTAINS(sarif, js.p + 1);
        CHECK_STR_CONTAINS(html, js.p + 1);
        struct dc_sbuf x = { 0 };               /* as JUnit's message holds it */
        dc_sxml_str(&x, head.p);
        CHECK_STR_CONTAINS(junit, x.p);
        dc_sfree(&x);
        dc_sfree(&js);
        dc_sfree(&head);
        dc_sfree(&text);
    }
    /* the framework error: its tensors at their lines in SARIF, the op's
     * frames as the code flow; in JUnit and the text, each tensor's line */
    CHECK_STR_CONTAINS(sarif, "\"relatedLocations\":[{\"id\":1,\"physicalLocation\":{\"artifactLocation\":"
                              "{\"uri\":\"vlm.py\",\"uriBaseId\":\"SRCROOT\"},\"region\":{\"startLine\":7}},"
                              "\"message\":{\"text\":\"image_features (cuda:1) made here\"}}");
    CHECK_STR_CONTAINS(sarif, "\"region\":{\"startLine\":5}},\"message\":{\"text\":\"inputs_embeds (cuda:0) made here\"}");
    CHECK_STR_CONTAINS(sarif, "\"codeFlows\":[{\"threadFlows\":[{\"locations\":[{\"location\":{\"physicalLocation\":"
                              "{\"artifactLocation\":{\"uri\":\"vlm.py\",\"uriBaseId\":\"SRCROOT\"},\"region\":"
                              "{\"startLine\":20}},\"message\":{\"text\":\"<module>\"}}},");
    CHECK_STR_CONTAINS(sarif, "\"locations\":[{\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"vlm.py\","
                              "\"uriBaseId\":\"SRCROOT\"},\"region\":{\"startLine\":9}}");
    CHECK_STR_CONTAINS(junit, "at vlm.py:9 in merge: x = torch.cat([inputs_embeds, image_features])");
    CHECK_STR_CONTAINS(junit, "image_features: cuda:1, made at vlm.py:7 in merge");
    CHECK_STR_CONTAINS(junit, "inputs_embeds: cuda:0, made at vlm.py:5 in merge");
    CHECK_STR_CONTAINS(junit, "hint: image_features = image_features.to(inputs_embeds.device)");
    CHECK_STR_CONTAINS(html, "image_features: cuda:1, made at vlm.py:7 in merge");
    CHECK(!strstr(sarif, "<unknown kernel>") && !strstr(junit, "<unknown kernel>"));
    free(sarif);
    free(junit);
    free(html);
    dc_model_free(m);
    if (argc <= 1) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", outdir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_kinds: could not remove %s\n", outdir);
    }
    return unit_done("test_kinds");
}
