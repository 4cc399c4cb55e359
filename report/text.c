/* text: one finding as the human-readable report block (see text.h). */
#include "report/text.h"
#include "report/gpus.h"
#include "report/testname.h"
#include "report/fold.h"
#include "report/frames.h"
#include "report/hint.h"
#include "report/log.h"
#include "report/pystack.h"
#include "report/stack.h"
#include "report/symbolize.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *sev_upper(enum dc_severity s)
{
    return s == DC_SEV_ERROR ? "ERROR" : s == DC_SEV_WARNING ? "WARNING" : "INFO";
}

static const char *basename_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static const char *display_file(const char *file)
{
    static char cwd[1024];
    static int have_cwd = -1;
    if (have_cwd < 0)
        have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    size_t n = have_cwd ? strlen(cwd) : 0;
    if (n > 1 && !strncmp(file, cwd, n) && file[n] == '/')
        return file + n + 1;
    return file;
}

/* pre, a source line as the user knows it, " in function" (none when ""):
 * an IPython cell as IPython's traceback names it (`Cell In[3], line 2`,
 * report/pystack.h), else file:line, relative to the working directory. */
static void put_line(struct dc_buf *b, const char *pre, const char *file, int line, const char *function)
{
    int cell = dc_py_cell(file);
    if (cell >= 0)
        dc_bput(b, "%sCell In[%d], line %d", pre, cell, line);
    else
        dc_bput(b, "%s%s:%d", pre, display_file(file), line);
    if (function && *function)
        dc_bput(b, " in %s", function);
}

/* The library a folded frame belongs to: the folder after site-packages/,
 * else the module's or file's base name. */
static void library_name(const struct dc_frame *f, char *out, size_t len)
{
    const char *p = strstr(f->file, "-packages/");
    if (p) {
        p += 10;
        snprintf(out, len, "%.*s", (int)strcspn(p, "/."), p);
        return;
    }
    const char *s = f->module[0] ? f->module : f->file[0] ? f->file : "?";
    snprintf(out, len, "%.*s", (int)strcspn(basename_of(s), "."), basename_of(s));
}

/* The frames as report/fold.h shows them: a folded run behind a count and
 * its libraries' names. */
static void text_stack(struct dc_buf *b, const char *title, const struct dc_frame *fr, size_t n)
{
    dc_bput(b, "    %s:", title);
    if (!n) {
        dc_bput(b, " (not recorded)\n");
        return;
    }
    dc_bput(b, "\n");
    int fold = dc_log_verbosity() < 1, user = fold && dc_frames_any_user(fr, n);
    for (size_t i = 0; i < n; i++) {
        size_t run = fold ? dc_frames_run(fr, n, i, user) : 0;
        if (run >= 2) {
            char libs[160] = "", one[64];
            size_t used = 0;
            int k = 0;
            for (size_t j = i; j < i + run && k < 4 && used < sizeof libs; j++) {
                library_name(&fr[j], one, sizeof one);
                if (strstr(libs, one))
                    continue;
                used += (size_t)snprintf(libs + used, sizeof libs - used, "%s%s", k++ ? ", " : "", one);
            }
            dc_bput(b, "      ... %zu library frames (%s)\n", run, libs);
            i += run - 1;
            continue;
        }
        const struct dc_frame *f = &fr[i];
        dc_bput(b, "      #%zu ", i);
        if (f->function[0])
            dc_bput(b, "%s", f->function);
        else
            dc_bput(b, "0x%zx", (size_t)f->ip);
        if (f->file[0])
            put_line(b, " at ", f->file, f->line, "");
        if (f->module[0])
            dc_bput(b, " (%s+0x%zx)", basename_of(f->module), (size_t)f->offset);
        dc_bput(b, "\n");
    }
}

/* A stack with Python frames: those first (the user reads them), then the
 * native frames under the same title. */
static void text_stacks(struct dc_buf *b, const char *title, const struct dc_frame *fr, size_t n)
{
    size_t nat = dc_frames_native(fr, n);
    if (nat < n) {
        char t[64];
        snprintf(t, sizeof t, "%s (Python)", title);
        text_stack(b, t, fr + nat, n - nat);
    }
    text_stack(b, title, fr, nat);
}

/* The report's lead when Python ran: the user's own line of the launch and
 * of the allocation. */
static void text_lead(struct dc_buf *b, const struct dc_finding *f, const struct dc_frame *lf, size_t nl,
                      const struct dc_frame *af, size_t na, int segment)
{
    const struct dc_frame *u = dc_frames_user(lf, nl);
    const struct dc_frame *a = f->has_operand && f->alloc_known ? dc_frames_user(af, na) : NULL;
    if (!u && !a)
        return;
    dc_bput(b, "    at ");
    if (u)
        put_line(b, "", u->file, u->line, u->function);
    else
        dc_bput(b, "(no Python frame)");
    if (a)
        put_line(b, segment ? "; memory from a segment allocated at " : "; memory allocated at ", a->file, a->line,
                 a->function);
    dc_bput(b, "\n");
}

static const char *mem_phrase(enum dc_mem_kind k)
{
    switch (k) {
    case DC_MEM_DEVICE:          return "device";
    case DC_MEM_POOL:            return "pool (stream-ordered)";
    case DC_MEM_VMM:             return "VMM-mapped";
    case DC_MEM_IPC:             return "IPC-imported";
    case DC_MEM_MANAGED:         return "managed";
    case DC_MEM_HOST_PINNED:     return "pinned host";
    case DC_MEM_HOST_REGISTERED: return "registered host";
    default:                     return "host";
    }
}

static void text_operand(struct dc_buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (f->argument && *f->argument)
        dc_bput(b, "    operand: argument %s = 0x%zx: ", f->argument, (size_t)f->address);
    else if (f->param >= 0 && f->param_name)
        dc_bput(b, "    operand: param %d (%s), word +%u = 0x%zx: ", f->param, f->param_name, f->word_offset,
                (size_t)f->address);
    else if (f->param >= 0)
        dc_bput(b, "    operand: param %d, word +%u = 0x%zx: ", f->param, f->word_offset, (size_t)f->address);
    else
        dc_bput(b, "    operand: argument buffer +%u = 0x%zx: ", f->word_offset, (size_t)f->address);
    if (!f->alloc_known) {
        dc_bput(b, "pageable host memory (not allocated through CUDA); cuda:%d %s\n", l->device,
             f->access ? f->access : "");
        return;
    }
    const struct dc_finding_alloc *a = &f->alloc;
    dc_bput(b, "offset %zu in a %zu-byte %s %s", (size_t)(f->address - a->base), a->size,
         mem_phrase(a->kind), a->segment_size ? "block" : "allocation");
    if (a->segment_size)
        dc_bput(b, " (at offset %zu of a %zu-byte caching allocator segment)", (size_t)(a->base - a->segment_base),
                a->segment_size);
    if (a->owner >= 0)
        dc_bput(b, " owned by cuda:%d", a->owner);
    if (a->from_driver)
        dc_bput(b, " (told by the driver: devcheck did not see it allocated)");
    if (f->kind == DC_F_DEVICE_MISMATCH || f->kind == DC_F_ASYNC_ERROR)
        dc_bput(b, "; cuda:%d has no access (%s)\n", l->device, f->access ? f->access : "");
    else if (f->kind == DC_F_PEER_ACCESS)
        dc_bput(b, "; cuda:%d may access it (%s), across the interconnect\n", l->device, f->access ? f->access : "");
    else
        dc_bput(b, "; %s\n", f->access ? f->access : "");
}

/* peer_access: who enabled peer access (the call, the user's line of the
 * stack that made it: PyTorch enables it itself inside a copy between two
 * GPUs).  Under the report's lock. */
static void text_peer(struct dc_buf *b, const struct dc_finding *f)
{
    struct dc_peer_enabler w;
    if (dc_frames_peer_enabler(f, &w) != 0)
        return;
    dc_bput(b, "    peer access: cuda:%d -> cuda:%d enabled by %s", f->launch->device, f->alloc.owner,
            w.torch ? "PyTorch itself, for a copy between the GPUs" : w.api ? w.api : "the program");
    if (w.torch && w.api)
        dc_bput(b, " (%s)", w.api);
    if (w.user)
        put_line(b, " at ", w.user->file, w.user->line, w.user->function);
    dc_bput(b, "\n");
}

/* numba: the operand as the Python call passed it (its flattened array
 * parameter -> the argument, and the argument's expression on the user's
 * launch line when it can be read). */
static void text_numba_arg(struct dc_buf *b, const struct dc_finding *f, const char *kname,
                           const struct dc_frame *lf, size_t nl)
{
    int arg;
    const char *field;
    if (!f->has_operand || f->param < 0 || dc_numba_param(kname, f->param, &arg, &field) != 0)
        return;
    char name[256], expr[256];
    size_t k = strcspn(kname, "(");
    const char *s = kname;
    for (const char *c = kname; c < kname + k; c++)
        if (c[0] == ':' && c[1] == ':')
            s = c + 2;
    snprintf(name, sizeof name, "%.*s", (int)(kname + k - s), s);
    const struct dc_frame *u = dc_frames_user(lf, nl);
    dc_bput(b, "    argument: ");
    if (u && dc_call_arg(u->file, u->line, name, arg, expr, sizeof expr) == 0)
        dc_bput(b, "%s, ", expr);
    dc_bput(b, "argument %d of %s%s%s%s\n", arg, name, *field ? " (its " : "", field,
            !*field ? "" : strcmp(field, "data") ? ")" : " pointer)");
}

/* async_error: every operand of the launch, one line each. */
static void text_operands(struct dc_buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (!f->nops) {
        dc_bput(b, "    operands: none known to devcheck\n");
        return;
    }
    dc_bput(b, "    operands:\n");
    for (unsigned i = 0; i < f->nops; i++) {
        const struct dc_opnd *o = &f->ops[i];
        if (o->argument)
            dc_bput(b, "      argument %s = 0x%zx: ", o->argument, (size_t)o->address);
        else if (o->param >= 0)
            dc_bput(b, "      param %d, word +%u = 0x%zx: ", o->param, o->word_offset, (size_t)o->address);
        else
            dc_bput(b, "      argument buffer +%u = 0x%zx: ", o->word_offset, (size_t)o->address);
        if (!o->alloc_known)
            dc_bput(b, "pageable host memory");
        else
            dc_bput(b, "%s memory owned by cuda:%d%s", mem_phrase(o->alloc.kind), o->alloc.owner,
                    o->alloc.from_driver ? " (told by the driver)" : "");
        if (o->word == DC_WK_UNKNOWN || o->word == DC_WK_BUFFER)
            dc_bput(b, " [a word of unknown meaning: a suspect]");
        if (o->accessible)
            dc_bput(b, "\n");
        else
            dc_bput(b, "; cuda:%d may not access it\n", l->device);
    }
}

static void text_action(struct dc_buf *b, const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    if (f->action == DC_ACT_MIGRATED) {
        if (f->moved_bytes)
            dc_bput(b, "    action: migrated: %llu bytes copied to cuda:%d for this launch and back after it\n",
                 (unsigned long long)f->moved_bytes, f->to_device);
        else
            dc_bput(b, "    action: migrated to cuda:%d for this launch (shares the copy of another operand)\n",
                 f->to_device);
    } else if (f->action == DC_ACT_NOT_MIGRATED) {
        dc_bput(b, "    action: not migrated: %s; the %s went ahead unmodified on cuda:%d\n",
             f->reason ? f->reason : "?", f->argument ? "call" : "launch", l->device);
    }
}

static void text_hint(struct dc_buf *b, const struct dc_finding *f, enum dc_client client)
{
    size_t at = b->pos;
    dc_bput(b, "    hint: ");
    size_t start = b->pos;
    dc_hint(b, f, client);
    if (b->pos == start)
        b->pos = at, b->p[at] = 0;      /* no hint for this kind */
    else
        dc_bput(b, "\n");
}

static void text_nvtx(struct dc_buf *b, const struct dc_finding *f)
{
    if (dc_test_name())                 /* the test it happened in (the pytest plugin) */
        dc_bput(b, "    test: %s\n", dc_test_name());
    if (!f->nnvtx)
        return;
    dc_bput(b, "    NVTX:");
    for (unsigned i = 0; i < f->nnvtx; i++)
        dc_bput(b, "%s%s", i ? " > " : " ", f->nvtx[i]);
    dc_bput(b, "\n");
}

/* "<indent>at FILE:LINE in FUNC: SOURCE" */
static void framework_at(struct dc_buf *b, const char *indent, const struct dc_pyloc *op)
{
    if (!op)
        return;
    dc_bput(b, "%s", indent);
    put_line(b, "at ", op->file, op->line, op->function);
    if (op->source && op->source[0])
        dc_bput(b, ": %s", op->source);
    dc_bput(b, "\n");
}

/* One line per tensor: its device and where the user's code allocated it
 * (the first user frame of its allocation's Python stack: the .to() line,
 * not torch's convert), or made it (a CPU tensor: the statement that last
 * assigned it).  Under the report's lock. */
static void framework_tensors(struct dc_buf *b, const char *indent, const struct dc_finding *f)
{
    static struct dc_frame fr[DC_FRAMES_MAX];      /* under the report's lock */
    for (unsigned i = 0; i < f->ntensors; i++) {
        const struct dc_tensor *t = &f->tensors[i];
        dc_bput(b, "%s%s: %s", indent, t->expr, t->device);
        if (!t->alloc_known) {
            if (t->made.file)
                put_line(b, ", made at ", t->made.file, t->made.line, t->made.function);
            else
                dc_bput(b, "%s", strncmp(t->device, "cuda", 4) ? "" : ", memory not known to devcheck");
            dc_bput(b, "\n");
            continue;
        }
        /* the user's Python line; native names only for the segment test */
        size_t n = dc_stack_symbolize_need(t->alloc.alloc_stack, fr, DC_FRAMES_MAX,
                                           t->alloc.segment_size ? DC_SYM_PYTHON : DC_SYM_NAMES);
        const struct dc_frame *u = dc_frames_user(fr, n);
        if (!u && n) {           /* no Python frame: the innermost native frame's file and line are shown */
            n = dc_stack_symbolize(t->alloc.alloc_stack, fr, DC_FRAMES_MAX);
            u = dc_frames_user(fr, n);
        }
        const char *what = !t->alloc.segment_size && dc_frames_segment(fr, n) ? "in a segment allocated" : "allocated";
        if (!n) {
            dc_bput(b, ", allocation stack not recorded\n");
            continue;
        }
        dc_bput(b, ", %s", what);
        if (u || fr[0].file[0])
            put_line(b, " at ", u ? u->file : fr[0].file, u ? u->line : fr[0].line, u ? u->function : fr[0].function);
        else
            dc_bput(b, " in %s", fr[0].function[0] ? fr[0].function : basename_of(fr[0].module));
        dc_bput(b, "\n");
    }
}

/* framework_device_error: the framework's message, the user's line, each
 * tensor with its device and allocation line, the op's Python stack, the fix. */
/* pointer_refused: "parameter 0 (x) is cuda:1's memory; cuda:0 is current
 * and has no access to it: the driver gave no device address" */
static void refused_line(struct dc_buf *b, const char *indent, const struct dc_finding *f)
{
    dc_bput(b, "%s", indent);
    if (f->param >= 0)
        dc_bput(b, "parameter %d ", f->param);
    if (f->ntensors && f->tensors[0].alloc_known)
        dc_bput(b, "%s%s%s", f->param >= 0 ? "(" : "", f->tensors[0].expr, f->param >= 0 ? ") " : " ");
    dc_bput(b, "is cuda:%d's memory; cuda:%d is current and has no access to it: the driver refused its device "
               "address (cuPointerGetAttribute), no kernel ran\n",
            f->owner_device, f->launch->current_device);
}

static void text_framework(struct dc_buf *b, const struct dc_finding *f)
{
    if (f->kind == DC_F_POINTER_REFUSED)
        dc_bput(b, "==devcheck== %s: %s: %s refused a pointer of cuda:%d with cuda:%d current: %s\n",
                sev_upper(f->severity), dc_finding_kind_name(f->kind), f->framework ? f->framework : "the framework",
                f->owner_device, f->launch->current_device, f->message ? f->message : "?");
    else
        dc_bput(b, "==devcheck== %s: %s: %s refused an op over devices: %s\n", sev_upper(f->severity),
                dc_finding_kind_name(f->kind), f->framework ? f->framework : "the framework",
                f->message ? f->message : "?");
    framework_at(b, "    ", dc_framework_user_frame(f));
    if (f->kind == DC_F_POINTER_REFUSED)
        refused_line(b, "    ", f);
    text_nvtx(b, f);
    dc_bput(b, "    tensors:%s\n", f->ntensors ? "" : " (none found in the failing frame)");
    framework_tensors(b, "      ", f);
    /* a program with no Python frame (launch_stack): its own call stack */
    dc_bput(b, "    %s:%s\n", f->launch_stack ? "call stack" : "op stack (Python)", f->npylocs ? "" : " (not recorded)");
    for (unsigned i = 0; i < f->npylocs; i++) {
        dc_bput(b, "      #%u %s", i, f->pylocs[i].function);
        put_line(b, " at ", f->pylocs[i].file, f->pylocs[i].line, "");
        dc_bput(b, "\n");
    }
    if (f->fix && f->kind == DC_F_POINTER_REFUSED)
        dc_bput(b, "    hint: launch on the device that holds the memory, or move it: %s\n", f->fix);
    else if (f->fix)
        dc_bput(b, "    hint: put every tensor of the op on one device: %s\n", f->fix);
}

void dc_text_framework_note(struct dc_buf *b, const struct dc_finding *f)
{
    if (f->kind == DC_F_POINTER_REFUSED)
        dc_bput(b, "devcheck: %s: not a CPU tensor: cuda:%d's memory, refused with cuda:%d current\n",
                dc_finding_kind_name(f->kind), f->owner_device, f->launch->current_device);
    else
        dc_bput(b, "devcheck: %s: the op's tensors are on different devices\n", dc_finding_kind_name(f->kind));
    framework_at(b, "  ", dc_framework_user_frame(f));
    if (f->kind == DC_F_POINTER_REFUSED)
        refused_line(b, "  ", f);
    framework_tensors(b, "  ", f);
    if (f->fix)
        dc_bput(b, "  fix: %s\n", f->fix);
    if (b->pos && b->p[b->pos - 1] == '\n')
        b->p[--b->pos] = 0;
}

/* s as one line for a header: newlines too escaped (see dc_text_escape). */
static const char *one_line(char *tmp, size_t len, const char *s)
{
    snprintf(tmp, len, "%s", s);
    dc_text_escape(tmp, 0, strlen(tmp), len, 1);
    return tmp;
}

static void text_finding(struct dc_buf *b, const struct dc_finding *f, const char *kname_raw,
                         const struct dc_frame *launch_frames, size_t nl, const struct dc_frame *alloc_frames, size_t na)
{
    if (dc_finding_framework(f)) {
        text_framework(b, f);
        return;
    }
    const struct dc_finding_launch *l = f->launch;
    char stream[32], kname[4 * 1024 + 8], arg[1024];
    one_line(kname, sizeof kname, kname_raw ? kname_raw : "?");
    snprintf(stream, sizeof stream, "0x%zx", (size_t)l->stream);
    if (f->argument && f->kind == DC_F_ASYNC_ERROR) {      /* a library call, sync=1 */
        dc_bput(b, "==devcheck== %s: %s: %s on cuda:%d (stream %s) failed on the device: %s\n",
                sev_upper(f->severity), dc_finding_kind_name(f->kind), l->api ? l->api : "?", l->device, stream,
                f->error ? f->error : "?");
    } else if (f->argument && f->kind == DC_F_STREAM_MISMATCH) {  /* a library call's stream */
        dc_bput(b, "==devcheck== %s: %s: %s argument %s is a stream of cuda:%d (stream %s) but the call runs on "
                   "cuda:%d\n", sev_upper(f->severity), dc_finding_kind_name(f->kind), l->api ? l->api : "?",
                f->argument, l->device, stream, l->current_device);
    } else if (f->argument) {           /* a library call checked at its API */
        dc_bput(b, "==devcheck== %s: %s: %s argument %s on cuda:%d (stream %s)\n", sev_upper(f->severity),
                dc_finding_kind_name(f->kind), l->api ? l->api : "?", one_line(arg, sizeof arg, f->argument),
                l->device, stream);
    } else {
        dc_bput(b, "==devcheck== %s: %s: kernel %s ", sev_upper(f->severity), dc_finding_kind_name(f->kind), kname);
        if (f->kind == DC_F_STREAM_MISMATCH)
            dc_bput(b, "launched into stream %s of cuda:%d while the current device is cuda:%d (via %s)\n",
                 stream, l->device, l->current_device, l->api ? l->api : "?");
        else if (f->kind == DC_F_UNCHECKED_KERNEL)
            dc_bput(b, "launched on cuda:%d (stream %s, via %s): parameter layout unknown, operands not checked\n",
                 l->device, stream, l->api ? l->api : "?");
        else if (f->kind == DC_F_ASYNC_ERROR)
            dc_bput(b, "launched on cuda:%d (stream %s, via %s) failed on the device: %s\n",
                 l->device, stream, l->api ? l->api : "?", f->error ? f->error : "?");
        else
            dc_bput(b, "launched on cuda:%d (stream %s, via %s)\n", l->device, stream, l->api ? l->api : "?");
    }
    int segment = f->has_operand && f->alloc_known && !f->alloc.segment_size && dc_frames_segment(alloc_frames, na);
    text_lead(b, f, launch_frames, nl, alloc_frames, na, segment);
    text_nvtx(b, f);
    dc_gpus_text(b, f);                 /* under CUDA_VISIBLE_DEVICES: the GPUs behind the ordinals */
    if (f->kind == DC_F_ASYNC_ERROR)
        text_operands(b, f);
    if (f->has_operand) {
        text_operand(b, f);
        text_peer(b, f);
        text_numba_arg(b, f, kname_raw ? kname_raw : "", launch_frames, nl);
    }
    if (f->weak && dc_finding_shape_only(f))
        dc_bput(b, "    evidence: weak: launch shape only: the kernel has no type for this parameter (no mangled "
                   "name, no debug information, no source seen); it is an 8-byte parameter holding this address, "
                   "and an 8-byte integer with the same value would look the same\n");
    else if (f->weak)
        dc_bput(b, "    evidence: weak: the kernel's image came from NVIDIA's closed libraries (origin %s), and "
                   "a closed library's kernel may not read this parameter; check the call at the library's API\n",
                l->origin ? l->origin : "library");
    text_action(b, f);
    text_stacks(b, "launch stack", launch_frames, nl);
    if (f->has_operand && f->alloc_known)
        text_stacks(b, segment ? "segment allocated at" : "allocated at", alloc_frames, na);
    text_hint(b, f, dc_frames_client(launch_frames, nl));
}

/* Every value in the block (names, paths, messages: the program's and the
 * images' bytes) reaches a terminal or a CI log: escaped (\x1b), and the
 * header kept to one line. */
void dc_text_finding(struct dc_buf *b, const struct dc_finding *f, const char *kname,
                     const struct dc_frame *launch_frames, size_t nl, const struct dc_frame *alloc_frames, size_t na)
{
    size_t p0 = b->pos;
    text_finding(b, f, kname, launch_frames, nl, alloc_frames, na);
    if (!b->len)
        return;
    size_t end = dc_text_escape(b->p, p0, b->pos, b->len, 0);
    if (end < b->pos)
        b->truncated = 1;
    b->pos = end;
}
