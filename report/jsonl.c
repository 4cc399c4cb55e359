/* jsonl: findings and the summary as JSON Lines records (see jsonl.h). */
#include "report/jsonl.h"
#include "report/gpus.h"
#include "report/testname.h"
#include "report/counts.h"
#include "report/stats.h"
#include "report/matrix.h"
#include "report/suppress.h"
#include "report/hint.h"
#include "report/frames.h"

#include <stdio.h>
#include <string.h>

static void json_stack(struct dc_buf *b, const struct dc_frame *fr, size_t n)
{
    dc_bput(b, "[");
    for (size_t i = 0; i < n; i++) {
        const struct dc_frame *f = &fr[i];
        dc_bput(b, "%s{\"function\":", i ? "," : "");
        dc_bjson_str(b, f->function[0] ? f->function : NULL);
        dc_bput(b, ",\"module\":");
        dc_bjson_str(b, f->module[0] ? f->module : NULL);
        dc_bput(b, ",\"offset\":%zu,\"file\":", (size_t)f->offset);
        dc_bjson_str(b, f->file[0] ? f->file : NULL);
        if (f->line > 0)
            dc_bput(b, ",\"line\":%d}", f->line);
        else
            dc_bput(b, ",\"line\":null}");
    }
    dc_bput(b, "]");
}

/* A Python frame handed over by the interpreter: {"file","line","function"
 * [,"source"]}, or null. */
static void json_pyloc(struct dc_buf *b, const struct dc_pyloc *p)
{
    if (!p || !p->file) {
        dc_bput(b, "null");
        return;
    }
    dc_bput(b, "{\"file\":");
    dc_bjson_str(b, p->file);
    dc_bput(b, ",\"line\":%d,\"function\":", p->line);
    dc_bjson_str(b, p->function);
    if (p->source) {
        dc_bput(b, ",\"source\":");
        dc_bjson_str(b, p->source);
    }
    dc_bput(b, "}");
}

/* Python frames: [{"file","line","function"}], innermost first. */
static void json_pystack(struct dc_buf *b, const struct dc_frame *fr, size_t n)
{
    dc_bput(b, "[");
    for (size_t i = 0; i < n; i++) {
        dc_bput(b, "%s{\"file\":", i ? "," : "");
        dc_bjson_str(b, fr[i].file[0] ? fr[i].file : NULL);
        if (fr[i].line > 0)
            dc_bput(b, ",\"line\":%d,\"function\":", fr[i].line);
        else
            dc_bput(b, ",\"line\":null,\"function\":");
        dc_bjson_str(b, fr[i].function);
        dc_bput(b, "}");
    }
    dc_bput(b, "]");
}

static void json_operand(struct dc_buf *b, int param, const char *param_name, uint32_t word_offset, uintptr_t address,
                         const struct dc_finding_alloc *a, const char *access, enum dc_word_kind word,
                         const char *evidence)
{
    dc_bput(b, "{\"param\":%d,\"word_offset\":%u,\"address\":\"0x%zx\"", param, word_offset, (size_t)address);
    if (param_name) {                   /* the kernel source's name for it (a JIT kernel's) */
        dc_bput(b, ",\"param_name\":");
        dc_bjson_str(b, param_name);
    }
    if (a)
        dc_bput(b, ",\"offset\":%zu,\"alloc_size\":%zu,\"memory\":\"%s\",\"owner_device\":%d",
             (size_t)(address - a->base), a->size, dc_mem_kind_name(a->kind), a->owner);
    else
        dc_bput(b, ",\"offset\":null,\"alloc_size\":null,\"memory\":\"pageable\",\"owner_device\":-1");
    if (a && a->segment_size)
        dc_bput(b, ",\"segment\":{\"base\":\"0x%zx\",\"size\":%zu,\"offset\":%zu}", (size_t)a->segment_base,
                a->segment_size, (size_t)(a->base - a->segment_base));
    dc_bput(b, ",\"access\":");
    dc_bjson_str(b, access);
    dc_bput(b, ",\"word\":\"%s\",\"evidence\":", dc_word_kind_name(word));
    dc_bjson_str(b, evidence);
    dc_bput(b, ",\"owner_from\":\"%s\"}", a && a->from_driver ? "driver" : "devcheck");
}

static void json_nvtx(struct dc_buf *b, const struct dc_finding *f)
{
    if (!f->nnvtx)
        return;
    dc_bput(b, ",\"nvtx\":[");
    for (unsigned i = 0; i < f->nnvtx; i++) {
        dc_bput(b, "%s", i ? "," : "");
        dc_bjson_str(b, f->nvtx[i]);
    }
    dc_bput(b, "]");
}

/* framework_device_error: the launch fields name the framework ("api") and
 * the op's device (the anchor tensor's); pointer_refused: the current
 * device (launch.device, launch.current_device), the pointer, its owner
 * (owner_device) and the kernel parameter it was.  The op's (the call's)
 * Python stack is launch_python_stack -- a program with no Python frame's
 * call stack is launch_stack --; each tensor carries its allocation's
 * Python stack. */
static void json_proc(struct dc_buf *b, const struct dc_proc *p, const struct dc_finding *f);

static void json_framework(struct dc_buf *b, const struct dc_finding *f, uint64_t id, const struct dc_proc *proc,
                           const struct dc_frame *launch_frames, size_t nl, size_t *count_at)
{
    static struct dc_frame fr[DC_FRAMES_MAX];      /* under the report's lock */
    const struct dc_finding_launch *l = f->launch;
    dc_bput(b, "{\"type\":\"finding\",\"id\":%llu", (unsigned long long)id);
    json_proc(b, proc, f);
    dc_bput(b, ",\"kind\":\"%s\",\"severity\":\"%s\",\"kernel\":null,"
               "\"kernel_mangled\":null,\"launch\":{\"device\":%d,\"stream\":\"0x0\",\"api\":",
            dc_finding_kind_name(f->kind), dc_severity_name(f->severity), l->device);
    dc_bjson_str(b, l->api);
    dc_bput(b, ",\"current_device\":%d},\"operand\":null,\"detected_by\":\"python\",\"framework\":",
            l->current_device);
    dc_bjson_str(b, f->framework);
    if (f->kind == DC_F_POINTER_REFUSED) {
        dc_bput(b, ",\"pointer\":\"0x%llx\",\"owner_device\":%d,\"param\":", (unsigned long long)f->address,
                f->owner_device);
        if (f->param >= 0)
            dc_bput(b, "%d", f->param);
        else
            dc_bput(b, "null");
    }
    dc_bput(b, ",\"message\":");
    dc_bjson_str(b, f->message);
    dc_bput(b, ",\"at\":");
    json_pyloc(b, dc_framework_user_frame(f));
    dc_bput(b, ",\"tensors\":[");
    for (unsigned i = 0; i < f->ntensors; i++) {
        const struct dc_tensor *t = &f->tensors[i];
        dc_bput(b, "%s{\"expr\":", i ? "," : "");
        dc_bjson_str(b, t->expr);
        dc_bput(b, ",\"device\":");
        dc_bjson_str(b, t->device);
        /* its Python frames; native names only for the segment test */
        size_t n = t->alloc_known ? dc_stack_symbolize_need(t->alloc.alloc_stack, fr, DC_FRAMES_MAX,
                                                            t->alloc.segment_size ? DC_SYM_PYTHON : DC_SYM_NAMES)
                                  : 0;
        size_t nat = dc_frames_native(fr, n);
        if (t->module) {
            dc_bput(b, ",\"module\":");
            dc_bjson_str(b, t->module);
        }
        dc_bput(b, ",\"alloc_python_stack\":");
        json_pystack(b, fr + nat, n - nat);
        const struct dc_frame *u = dc_frames_user(fr + nat, n - nat);
        struct dc_pyloc at = { u ? u->file : NULL, u ? u->line : 0, u ? u->function : NULL, NULL };
        dc_bput(b, ",\"alloc_at\":");
        json_pyloc(b, &at);
        if (n && !t->alloc.segment_size && dc_frames_segment(fr, n))
            dc_bput(b, ",\"alloc_segment\":true");
        dc_bput(b, ",\"made_at\":");
        json_pyloc(b, &t->made);
        dc_bput(b, "}");
    }
    dc_bput(b, "]");
    json_nvtx(b, f);
    if (f->fix) {
        dc_bput(b, ",\"hint\":");
        dc_bjson_str(b, f->fix);
    }
    dc_bput(b, ",\"action\":\"reported\",\"count\":");
    *count_at = b->pos;
    dc_bput(b, "1,\"launch_stack\":");
    json_stack(b, launch_frames, f->launch_stack ? nl : 0);    /* a C program's call stack (pointer_refused at exit) */
    dc_bput(b, ",\"alloc_stack\":[],\"launch_python_stack\":[");
    for (unsigned i = 0; i < f->npylocs && !f->launch_stack; i++) {
        dc_bput(b, "%s{\"file\":", i ? "," : "");
        dc_bjson_str(b, f->pylocs[i].file);
        if (f->pylocs[i].line > 0)
            dc_bput(b, ",\"line\":%d,\"function\":", f->pylocs[i].line);
        else
            dc_bput(b, ",\"line\":null,\"function\":");
        dc_bjson_str(b, f->pylocs[i].function);
        dc_bput(b, "}");
    }
    dc_bput(b, "]}\n");
}

/* peer_access by peer access: who enabled it (report/frames.h), as the
 * text's "peer access: ... enabled by" line says.  Under the report's lock. */
static void json_peer(struct dc_buf *b, const struct dc_finding *f)
{
    struct dc_peer_enabler w;
    if (dc_frames_peer_enabler(f, &w) != 0)
        return;
    dc_bput(b, ",\"peer_enabled_by\":{\"by\":\"%s\",\"call\":", w.torch ? "pytorch" : "program");
    dc_bjson_str(b, w.api);
    struct dc_pyloc at = { w.user ? w.user->file : NULL, w.user ? w.user->line : 0, w.user ? w.user->function : NULL,
                           NULL };
    dc_bput(b, ",\"at\":");
    json_pyloc(b, w.user ? &at : NULL);
    dc_bput(b, "}");
}

/* The devices finding f names, as the machine knows them (report/gpus.h). */
static void json_gpus(struct dc_buf *b, const struct dc_finding *f)
{
    int devs[24];
    dc_gpus_json(b, devs, dc_gpus_of_finding(f, devs, 24));
}

/* JSON line: head ends just after "count":, tail starts after the count. */
static void json_proc(struct dc_buf *b, const struct dc_proc *p, const struct dc_finding *f)
{
    dc_bput(b, ",\"pid\":%d,\"rank\":", p->pid);
    if (p->rank >= 0)
        dc_bput(b, "%d", p->rank);
    else
        dc_bput(b, "null");
    dc_bput(b, ",\"host\":");
    dc_bjson_str(b, p->host);
    if (f)
        json_gpus(b, f);
    else
        dc_gpus_json(b, NULL, 0);       /* the summary: every device of the process */
    if (dc_test_name()) {               /* the test it happened in (the pytest plugin) */
        dc_bput(b, ",\"test\":");
        dc_bjson_str(b, dc_test_name());
        if (f && dc_test_expects(dc_finding_kind_name(f->kind)))
            dc_bput(b, ",\"expected\":true");     /* devcheck_expected: not counted by error_exitcode */
    }
}

void dc_jsonl_finding(struct dc_buf *b, const struct dc_finding *f, uint64_t id, const struct dc_proc *proc,
                      const char *kname, const struct dc_frame *launch_frames, size_t nl,
                      const struct dc_frame *alloc_frames, size_t na, size_t *count_at)
{
    const struct dc_finding_launch *l = f->launch;
    if (dc_finding_framework(f)) {
        json_framework(b, f, id, proc, launch_frames, nl, count_at);
        return;
    }
    dc_bput(b, "{\"type\":\"finding\",\"id\":%llu", (unsigned long long)id);
    json_proc(b, proc, f);
    dc_bput(b, ",\"kind\":\"%s\",\"severity\":\"%s\",\"kernel\":", dc_finding_kind_name(f->kind),
            dc_severity_name(f->severity));
    dc_bjson_str(b, l->kernel ? kname : NULL);
    dc_bput(b, ",\"kernel_mangled\":");
    dc_bjson_str(b, l->kernel);
    if (l->origin)
        dc_bput(b, ",\"origin\":\"%s\"", l->origin);
    if (f->weak)
        dc_bput(b, ",\"weak_evidence\":true");
    if (f->argument) {                  /* a library call checked at its API: the call and its argument */
        dc_bput(b, ",\"api\":");
        dc_bjson_str(b, l->api);
        dc_bput(b, ",\"argument\":");
        dc_bjson_str(b, *f->argument ? f->argument : NULL);     /* "": an async_error without a suspect */
    }
    dc_bput(b, ",\"launch\":{\"device\":%d,\"stream\":\"0x%zx\",\"api\":", l->device, (size_t)l->stream);
    dc_bjson_str(b, l->api);
    dc_bput(b, ",\"current_device\":%d}", l->current_device);
    if (f->kind == DC_F_STREAM_MISMATCH)
        dc_bput(b, ",\"stream_device\":%d,\"current_device\":%d", l->device, l->current_device);
    if (f->has_operand) {
        dc_bput(b, ",\"operand\":");
        json_operand(b, f->param, f->param_name, f->word_offset, f->address, f->alloc_known ? &f->alloc : NULL, f->access, f->word,
                     f->evidence);
    } else {
        dc_bput(b, ",\"operand\":null");
    }
    json_peer(b, f);
    if (f->kind == DC_F_ASYNC_ERROR) {
        dc_bput(b, ",\"error\":");
        dc_bjson_str(b, f->error);
        dc_bput(b, ",\"operands\":[");
        for (unsigned i = 0; i < f->nops; i++) {
            const struct dc_opnd *o = &f->ops[i];
            dc_bput(b, "%s", i ? "," : "");
            json_operand(b, o->param, NULL, o->word_offset, o->address, o->alloc_known ? &o->alloc : NULL,
                         o->accessible ? "accessible" : "no access", o->word, NULL);
        }
        dc_bput(b, "]");
    }
    if (f->kind == DC_F_UNCHECKED_KERNEL) {
        dc_bput(b, ",\"reason\":");
        dc_bjson_str(b, f->reason ? f->reason : "no parameter layout");
    }
    json_nvtx(b, f);
    dc_bput(b, ",\"detected_by\":\"%s\",\"action\":\"%s\"", dc_path_name(l->path), dc_action_name(f->action));
    if (f->action == DC_ACT_MIGRATED)
        dc_bput(b, ",\"migration\":{\"device\":%d,\"bytes\":%llu}", f->to_device,
             (unsigned long long)f->moved_bytes);
    else if (f->action == DC_ACT_NOT_MIGRATED) {
        dc_bput(b, ",\"migration\":{\"reason\":");
        dc_bjson_str(b, f->reason);
        dc_bput(b, "}");
    }
    char hint[1024];
    struct dc_buf hb = { hint, sizeof hint, 0, 0 };
    hint[0] = 0;
    dc_hint(&hb, f, dc_frames_client(launch_frames, nl));
    if (hint[0]) {
        dc_bput(b, ",\"hint\":");
        dc_bjson_str(b, hint);
    }
    dc_bput(b, ",\"count\":");
    *count_at = b->pos;
    size_t nln = dc_frames_native(launch_frames, nl);
    if (!(f->has_operand && f->alloc_known))
        na = 0;
    size_t nan = dc_frames_native(alloc_frames, na);
    dc_bput(b, "1,\"launch_stack\":");
    json_stack(b, launch_frames, nln);
    dc_bput(b, ",\"alloc_stack\":");
    json_stack(b, alloc_frames, nan);
    if (nln < nl) {
        dc_bput(b, ",\"launch_python_stack\":");
        json_pystack(b, launch_frames + nln, nl - nln);
    }
    if (nan < na) {
        dc_bput(b, ",\"alloc_python_stack\":");
        json_pystack(b, alloc_frames + nan, na - nan);
    }
    if (na && !f->alloc.segment_size && dc_frames_segment(alloc_frames, na))
        dc_bput(b, ",\"alloc_segment\":true");
    dc_bput(b, "}\n");
}

/* ---- the matrices of the summary ------------------------------------------------ */

#define TOP_SITES 5                             /* per pair in the summary */

/* "function at file:line" of a copy's call site: of the stack's first
 * SITE_FRAMES frames, its innermost frame with a source file outside CUDA's
 * libraries, else the innermost frame. */
#define SITE_FRAMES 16

static int site_file(const struct dc_frame *f)
{
    const char *b = strrchr(f->module, '/');
    b = b ? b + 1 : f->module;
    return f->file[0] && strncmp(b, "libcudart", 9) && strncmp(b, "libcuda.", 8);
}

/* The site's frame when the lines alone decide it (a Python program's site
 * is its first Python line when no native frame has a line), NULL when they
 * do not: the stack symbolized with no native frame named (DC_SYM_LINES:
 * libtorch_cpu's 546,000 symbols are not searched at exit), every frame
 * (SITE_FRAMES would cut the native frames before those the whole answer
 * shows once it leaves out frames by name), into fr. */
static const struct dc_frame *site_by_lines(uint32_t id, struct dc_frame *fr)
{
    size_t n = dc_stack_symbolize_need(id, fr, DC_FRAMES_MAX, DC_SYM_LINES);
    size_t nat = dc_frames_native(fr, n), npy = n - nat;
    if (!npy || nat >= DC_FRAMES_MAX - npy)
        return NULL;                    /* no Python frame (a whole answer), or native frames cut */
    for (size_t i = 0; i < nat; i++)
        if (site_file(&fr[i]))
            return NULL;                /* a native line: the whole answer names it */
    for (size_t i = nat; i < nat + npy && i < nat + SITE_FRAMES / 2; i++)     /* the whole answer's Python frames */
        if (site_file(&fr[i]))
            return &fr[i];
    return NULL;
}

static void site_name(uint32_t id, char *out, size_t len)
{
    static struct dc_frame fr[DC_FRAMES_MAX];       /* under the report's lock */
    snprintf(out, len, "(unknown)");
    const struct dc_frame *pick = id ? site_by_lines(id, fr) : NULL;
    if (!pick) {
        size_t n = id ? dc_stack_symbolize(id, fr, SITE_FRAMES) : 0;
        for (size_t i = 0; i < n && !pick; i++)
            if (site_file(&fr[i]))
                pick = &fr[i];
        if (!pick && n)
            pick = &fr[0];
    }
    if (!pick)
        return;
    if (pick->file[0])
        snprintf(out, len, "%s at %s:%d", pick->function[0] ? pick->function : "??", pick->file, pick->line);
    else
        snprintf(out, len, "%s (%s+0x%zx)", pick->function[0] ? pick->function : "??",
                 strrchr(pick->module, '/') ? strrchr(pick->module, '/') + 1 : pick->module, (size_t)pick->offset);
}

/* ,"access":[...],"transfers":[...]: the operands counted per (launch device,
 * owner) (report/matrix.h) with each device's clean operands
 * (report/counts.h), and the copies per (source, destination) with their
 * top call sites by bytes (symbolized: exit only). */
static void json_matrices(struct dc_buf *b)
{
    dc_bput(b, ",\"access\":[");
    int first = 1;
    for (int d = 0; d < DC_MATRIX_DEVICES; d++)
        for (int c = 0; c < DC_MATRIX_COLS; c++) {
            uint64_t n = dc_matrix_operands(d, c);
            if (c == dc_matrix_index(d))
                n += dc_report_clean_operands(d, 0);
            else if (c == dc_matrix_index(DC_COL_MANAGED))
                n += dc_report_clean_operands(d, 1);
            if (!n)
                continue;
            dc_bput(b, "%s{\"launch_device\":%d,\"owner\":%d,\"operands\":%llu}", first ? "" : ",", d,
                    dc_matrix_col(c), (unsigned long long)n);
            first = 0;
        }
    dc_bput(b, "],\"transfers\":[");
    static struct dc_matrix_copy used[DC_MATRIX_SITES];        /* under the report's lock */
    size_t nused = dc_matrix_copies(used, DC_MATRIX_SITES);
    first = 1;
    for (int s = 0; s < DC_MATRIX_COLS; s++)
        for (int d = 0; d < DC_MATRIX_COLS; d++) {
            uint64_t calls = 0, bytes = 0;
            for (size_t i = 0; i < nused; i++)
                if (used[i].src == s && used[i].dst == d)
                    calls += used[i].calls, bytes += used[i].bytes;
            if (!calls)
                continue;
            dc_bput(b, "%s{\"src\":%d,\"dst\":%d,\"calls\":%llu,\"bytes\":%llu,\"sites\":[", first ? "" : ",",
                    dc_matrix_col(s), dc_matrix_col(d), (unsigned long long)calls, (unsigned long long)bytes);
            first = 0;
            int shown = 0;
            for (size_t i = 0; i < nused && shown < TOP_SITES; i++) {
                if (used[i].src != s || used[i].dst != d)
                    continue;
                char name[1200];
                site_name(used[i].site, name, sizeof name);
                dc_bput(b, "%s{\"site\":", shown ? "," : "");
                dc_bjson_str(b, name);
                dc_bput(b, ",\"calls\":%llu,\"bytes\":%llu}", (unsigned long long)used[i].calls,
                        (unsigned long long)used[i].bytes);
                shown++;
            }
            dc_bput(b, "]}");
        }
    dc_bput(b, "]");
}

void dc_jsonl_summary(struct dc_buf *b, const struct dc_report_stats *s, const struct dc_proc *proc,
                      int driver_version, int driver_layouts)
{
    dc_bput(b, "{\"type\":\"summary\"");
    json_proc(b, proc, NULL);
    dc_bput(b, ",\"driver_version\":%d,\"param_layouts\":\"%s\"", driver_version, driver_layouts ? "driver" : "images");
    char counts[DC_SUMMARY_JSON_MAX];
    dc_summary_json_counts(counts, sizeof counts, s);
    dc_bput(b, ",%s,\"suppressed\":[", counts);
    int first = 1;
    const char *name, *file;
    int line;
    uint64_t count;
    for (size_t i = 0; (name = dc_supp_entry(i, &file, &line, &count)) != NULL; i++) {
        if (!count)
            continue;
        dc_bput(b, "%s{\"name\":", first ? "" : ",");
        dc_bjson_str(b, name);
        dc_bput(b, ",\"file\":");
        dc_bjson_str(b, file);
        dc_bput(b, ",\"line\":%d,\"count\":%llu}", line, (unsigned long long)count);
        first = 0;
    }
    dc_bput(b, "]");
    json_matrices(b);
    if (dc_stats_on) {                  /* --stats */
        dc_bput(b, ",");
        dc_stats_json(b, s);
    }
    dc_bput(b, "}\n");
}
