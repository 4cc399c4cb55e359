/* check: the launch check (see check.h).
 *
 * Per launch: kernel filters (core/verdict/filter.c), the stream/current-device
 * rule, then the words the kernel's evidence says are pointers (a pointer
 * parameter, a pointer field of a known layout: core/kernel/kernels.h): registry
 * lookup first; one past the end of an allocation is an end iterator, never
 * an operand; a value the registry does not know is asked of the driver and
 * of the process's mappings (core/owner/ptrinfo.c; never dereferenced).  Words of
 * unknown meaning are never decided on: sync=1 lists them as suspects.  The
 * launch stack is captured, and the launch's description for the report
 * (struct dc_finding_launch) made, only when the launch has a finding. */
#include "core/verdict/check.h"
#include "core/verdict/wmemo.h"
#include "core/verdict/lmemo.h"
#include "core/verdict/view.h"
#include "core/owner/blocks.h"
#include "core/verdict/libcall.h"
#include "core/base/cudacall.h"
#include "core/verdict/filter.h"
#include "core/kernel/select.h"
#include "core/base/options.h"
#include "core/kernel/origin.h"
#include "core/kernel/pnames.h"
#include "core/owner/ptrinfo.h"
#include "core/owner/registry.h"
#include "report/counts.h"
#include "report/finding.h"
#include "report/report.h"
#include "report/matrix.h"
#include "report/stack.h"
#include "report/stats.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- one launch ------------------------------------------------------------------------ */

#define NO_REPEAT INT_MIN        /* ctx.repeat_col: no repeat (an access-matrix column is >= DC_COL_MANAGED) */

struct ctx {
    const struct dc_launch *l;
    struct dc_finding_launch fl;    /* l as the report sees it, once have_fl */
    int have_fl;
    uint32_t launch_stack;
    int have_stack;
    int errors;
    /* dc_check_async_error: collect the operands instead of deciding */
    int collect;
    struct dc_opnd *ops;        /* room for cap of them */
    unsigned nops, cap;
    /* clean operands (the launch device's own memory, managed memory),
     * counted in the access matrix once per launch */
    unsigned clean_own, clean_managed;
    /* a kernel inside a library call: the memory the call's check judged on
     * this device (core/verdict/libcall.h), not judged again; else NULL */
    const struct dc_libcover *cover;
    int judged;                 /* a word needed more than the registry's own-memory test */
    /* for the word memo: findings emitted; the last one's record when a repeat */
    unsigned emitted;
    int repeat_col;             /* its access-matrix column (pinned host memory's is negative); NO_REPEAT: not a repeat */
    struct dc_report_ref repeat;
    /* for the thread's last launch (core/verdict/lmemo.h): words counted as
     * repeats from the word memo, the last of them */
    unsigned nrep;
    struct dc_lmemo_rep rep;
};

static const struct dc_finding_launch *finding_launch(struct ctx *c)
{
    if (!c->have_fl) {
        dc_view_launch(&c->fl, c->l);
        c->have_fl = 1;
    }
    return &c->fl;
}

static uint32_t launch_stack(struct ctx *c)
{
    if (!c->have_stack) {
        /* frames: dc_stack_capture_finding <- launch_stack <- emit <-
         * check_word ... <- dc_check_launch <- the interposer; report time
         * drops libdevcheck's own frames, so no exact skip is needed.  A
         * finding's stack seen before on this thread (a repeat) is proven
         * from the thread's cache, not unwound. */
        c->launch_stack = dc_stack_capture_finding(0, (uintptr_t)c->l->kernel_key);
        c->have_stack = 1;
    }
    return c->launch_stack;
}

/* mode=migrate: an operand the launch device cannot use at all (weak
 * evidence is not acted on: the kernel may never read it). */
static int migratable(const struct dc_finding *f)
{
    return !f->weak && ((f->kind == DC_F_DEVICE_MISMATCH) ||
                        (f->kind == DC_F_HOST_MEMORY && !f->alloc_known && f->severity == DC_SEV_ERROR));
}

/* Hands the operand (in allocation a, NULL for pageable host memory) to the
 * caller (l->moves) instead of reporting it; 0 when it cannot (then f says
 * why and is reported). */
static int defer_move(struct ctx *c, struct dc_finding *f, const struct dc_alloc *a, uint32_t arg_offset)
{
    struct dc_moves *m = c->l->moves;
    if (m->n == m->cap) {
        unsigned cap = m->cap ? 2 * m->cap : 4;
        struct dc_move *v = realloc(m->v, cap * sizeof *v);
        if (!v) {
            f->action = DC_ACT_NOT_MIGRATED;
            f->reason = "devcheck ran out of memory";
            return 0;
        }
        m->v = v;
        m->cap = cap;
    }
    struct dc_move *mv = &m->v[m->n++];
    memset(mv, 0, sizeof *mv);
    mv->param = f->param;
    mv->word_offset = f->word_offset;
    mv->arg_offset = arg_offset;
    mv->address = f->address;
    mv->alloc_known = f->alloc_known;
    if (a) {
        mv->alloc = *a;
        struct dc_finding_alloc v;              /* a tensor's block: only its bytes move (issue 41) */
        dc_view_alloc(&v, &mv->alloc);
        if (dc_block_view(&v, &mv->alloc, f->address) && v.size && f->address - v.base < v.size)
            mv->copy_base = v.base, mv->copy_size = v.size;
    }
    mv->kind = f->kind;
    mv->severity = f->severity;
    mv->access = f->access;
    mv->launch_stack = f->launch_stack;
    mv->word = f->word;
    mv->evidence = f->evidence;
    mv->to_device = c->l->device;
    return 1;
}

static void emit_at(struct ctx *c, struct dc_finding *f, const struct dc_alloc *a, uint32_t arg_offset)
{
    f->launch = finding_launch(c);
    f->launch_stack_in_key = 1;
    /* a legal peer access's key has no stack: its repeat needs no unwinding */
    f->launch_stack = f->key_pair && dc_opt.mode != DC_MODE_MIGRATE ? 0 : launch_stack(c);
    if (f->severity == DC_SEV_ERROR)
        c->errors++;
    /* a repeat is counted from its key: nothing only a first report shows is looked up */
    c->emitted++;
    if (dc_opt.mode != DC_MODE_MIGRATE && dc_report_repeat(f, &c->repeat)) {
        c->repeat_col = f->has_operand && f->alloc_known ? c->repeat_col : NO_REPEAT;
        return;
    }
    if (!f->launch_stack)
        f->launch_stack = launch_stack(c);      /* a new one shows where it was first seen */
    c->repeat_col = NO_REPEAT;
    if (f->has_operand && !f->argument && f->param >= 0)   /* a JIT kernel's parameter by its source's name */
        f->param_name = dc_pnames_get(c->l->kernel, f->param);
    if (dc_opt.mode == DC_MODE_MIGRATE && f->has_operand && migratable(f)) {
        const char *no_rewrite = c->l->no_rewrite;
        if (!no_rewrite && c->l->path == DC_PATH_CUPTI)
            no_rewrite = DC_NO_REWRITE_CUPTI;   /* its parameters are read-only */
        if (no_rewrite) {
            f->action = DC_ACT_NOT_MIGRATED;
            f->reason = no_rewrite;
        } else if (c->l->moves && defer_move(c, f, a, arg_offset)) {
            return;                     /* reported by dc_check_moves_report */
        }
    }
    if (a && f->alloc_known)
        (void)dc_block_view(&f->alloc, a, f->address);
    dc_report_finding(f);
}

static void emit(struct ctx *c, struct dc_finding *f)
{
    emit_at(c, f, NULL, 0);
}

/* Does the launch device report pageable memory access (HMM/ATS)?  Asked
 * (cached by the driver module) only when a launch has host memory. */
static int pageable_ok(const struct dc_launch *l)
{
    return l->pageable_ok >= 0 ? l->pageable_ok : dc_pageable_ok(l->device);
}

static enum dc_severity host_severity(int pageable, int pageable_ok, int *skip)
{
    *skip = 0;
    switch (dc_opt.host_memory) {
    case DC_POLICY_ERROR:
        return DC_SEV_ERROR;
    case DC_POLICY_WARN:
        return DC_SEV_WARNING;
    case DC_POLICY_IGNORE:
        *skip = 1;
        return DC_SEV_INFO;
    case DC_POLICY_AUTO:
    default:
        return pageable && !pageable_ok ? DC_SEV_ERROR : DC_SEV_WARNING;
    }
}

/* One word to look at: where it is and what the evidence says it is. */
struct word {
    int param;                  /* -1: a packed buffer without a layout */
    uint32_t offset;            /* in the parameter (in the buffer when param == -1) */
    uint32_t arg_offset;        /* in the packed argument layout */
    uintptr_t v;
    enum dc_word_kind kind;
    int ev;                     /* enum dc_evidence */
    const char *arg;            /* a library call's argument name (dc_check_libcall); NULL in a launch */
};

/* Memory the launch device owns (or managed memory): nothing to say. */
static inline int clean(const struct dc_alloc *a, int device)
{
    return a->kind == DC_MEM_MANAGED ||
           ((a->kind == DC_MEM_DEVICE || a->kind == DC_MEM_POOL || a->kind == DC_MEM_IPC) && a->owner == device);
}

static int usable(const struct dc_alloc *a, int device)
{
    return a->kind == DC_MEM_MANAGED || a->kind == DC_MEM_HOST_PINNED || a->kind == DC_MEM_HOST_REGISTERED ||
           dc_reg_may_access(a, device);
}

/* Is v one past the end of an allocation (an end iterator, `a + n`)?  With
 * no allocation at v (at == NULL): yes when one ends there, and then it is
 * never an operand (never host memory).  When allocation *at starts at v:
 * yes when the launch device may use the one ending there but not *at --
 * the end iterator is the reading that does not invent an error; when it may
 * use *at, v is *at's operand (its usual finding, e.g. peer_access). */
static int end_iterator(const struct dc_launch *l, uintptr_t v, const struct dc_alloc *at)
{
    if (at && (v != at->base || usable(at, l->device)))
        return 0;
    const struct dc_alloc *before = dc_reg_lookup_ref(v - 1);
    if (!before || before->base + before->size != v)
        return 0;
    return !at || usable(before, l->device);
}

/* What the word points to: 1 with *a (known memory; in the registry's
 * per-thread cache, or in *tmp), 2 for pageable host memory, 0 for nothing
 * devcheck can name (or an end iterator). */
static int resolve(const struct dc_launch *l, uintptr_t v, const struct dc_alloc **a, struct dc_alloc *tmp)
{
    const struct dc_alloc *r = dc_reg_lookup_ref(v);
    if (r) {
        if (__builtin_expect(clean(r, l->device) || v != r->base || usable(r, l->device), 1)) {
            *a = r;
            return 1;
        }
        *tmp = *r;                      /* end_iterator's own lookup may take its cache slot */
        *a = tmp;
        return end_iterator(l, v, tmp) ? 0 : 1;
    }
    /* the driver first: memory devcheck did not see may start right where
     * one it saw ends */
    int rr = dc_addr_lookup(v, tmp);
    if (rr == DC_ADDR_KNOWN) {
        *a = tmp;
        return end_iterator(l, v, tmp) ? 0 : 1;
    }
    if (end_iterator(l, v, NULL))
        return 0;                       /* one past the end: never host memory */
    return rr == DC_ADDR_HOST ? 2 : 0;
}

/* dc_check_async_error: every operand the registry or the driver knows or
 * that is host memory, with whether the launch device may access it -- words
 * of unknown meaning too (the suspects: a kernel without types, CuPy's
 * RawKernel handed a numpy pointer, faults on a word devcheck could not
 * call a pointer). */
static void collect_word(struct ctx *c, const struct word *w)
{
    struct dc_opnd o;
    memset(&o, 0, sizeof o);
    o.param = w->param;
    o.word_offset = w->offset;
    o.address = w->v;
    o.word = w->kind;
    o.argument = w->arg;
    struct dc_alloc tmp;
    const struct dc_alloc *a = NULL;
    int r = resolve(c->l, w->v, &a, &tmp);
    if (r == 1) {
        o.alloc_known = 1;
        dc_view_alloc(&o.alloc, a);
        o.accessible = a->kind == DC_MEM_HOST_PAGEABLE ? pageable_ok(c->l) : dc_reg_may_access(a, c->l->device);
        (void)dc_block_view(&o.alloc, a, w->v);     /* last: may reuse the registry's cache that a lives in */
    } else if (r == 2) {
        o.accessible = pageable_ok(c->l);
    } else {
        return;
    }
    if (c->ops && c->nops < c->cap)
        c->ops[c->nops++] = o;
}

/* The access matrix's column of an operand's memory (report/matrix.h). */
static int operand_column(const struct dc_alloc *a)
{
    switch (a->kind) {
    case DC_MEM_HOST_PINNED:
    case DC_MEM_HOST_REGISTERED:
        return DC_COL_PINNED;
    case DC_MEM_HOST_PAGEABLE:
        return DC_COL_PAGEABLE;
    case DC_MEM_MANAGED:
        return DC_COL_MANAGED;
    default:
        return a->owner;
    }
}

/* What a word of the launch's kernel proves, by who made its image
 * (report/FORMAT.md, "What a word proves"): host memory (pageable among
 * them when pageable) in a word of a closed library's kernel proves no
 * access (cuBLAS's alpha/beta in host pointer mode, cuDNN's by-value
 * scalars passed as host pointers); pinned or registered host memory, which
 * any kernel may read, is no finding under host_memory=auto (XLA's redzone,
 * comparison and delay kernels read pinned flags by design; a program's
 * zero-copy buffer).  1: counted (quiet_operands), no finding. */
static int quiet_host(const struct dc_launch *l, int pageable)
{
    if (l->origin == DC_ORIGIN_LIBRARY || (!pageable && dc_opt.host_memory == DC_POLICY_AUTO)) {
        dc_report_count_quiet();
        return 1;
    }
    return 0;
}

/* A word whose only evidence is the launch's shape (core/kernel/kernels.h): it
 * proves that the parameter holds this address, not that the kernel uses it
 * as one (an 8-byte integer could hold the same value), so its finding is at
 * most a warning, marked weak, and never migrated. */
static void emit_word(struct ctx *c, struct dc_finding *f, const struct dc_alloc *a, const struct word *w)
{
    if (w->ev == DC_EV_LAUNCH_SHAPE) {
        f->weak = 1;
        if (f->severity == DC_SEV_ERROR)
            f->severity = DC_SEV_WARNING;
    }
    emit_at(c, f, a, w->arg_offset);
}

/* Is v in the process's writable memory (heap, stack, an anonymous or
 * writable mapping), as a launch-shape word must be to be host memory?  A
 * read-only mapping (a library's code, a file) is no buffer a program hands
 * a kernel. */
static int writable_host(uintptr_t v)
{
    uintptr_t end;
    int writable = 0;
    return dc_maps_lookup(v, &end, &writable, NULL, 0) == DC_MAP_HOST && writable;
}

/* A word with something to say (resolve gave r, and *a when r == 1): its
 * finding, if the options make one.  Counted in the access matrix. */
static __attribute__((noinline)) void report_word(struct ctx *c, const struct word *w, int r,
                                                  const struct dc_alloc *a)
{
    const struct dc_launch *l = c->l;
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.has_operand = 1;
    f.param = w->param;
    f.word_offset = w->offset;
    f.address = w->v;
    f.word = w->kind;
    f.evidence = w->ev ? dc_evidence_name(w->ev) : NULL;
    f.argument = w->arg;
    int skip;
    if (r == 1) {
        struct dc_alloc copy = *a;      /* a may live in the registry's cache: later lookups reuse it */
        a = &copy;
        c->repeat_col = operand_column(a);
        dc_report_count_operand(l->device, c->repeat_col);         /* the HTML access matrix */
        f.alloc_known = 1;
        dc_view_alloc(&f.alloc, a);
        switch (a->kind) {
        case DC_MEM_MANAGED:
            return;
        case DC_MEM_HOST_PAGEABLE:      /* not stored by the hooks; if it is, it is host memory */
            if (quiet_host(l, 1))
                return;
            f.kind = DC_F_HOST_MEMORY;
            f.severity = host_severity(1, pageable_ok(l), &skip);
            if (skip)
                return;
            f.access = pageable_ok(l) ? "reports pageable memory access (HMM/ATS): legal, slow"
                                      : "cannot access pageable host memory";
            emit_word(c, &f, a, w);
            return;
        case DC_MEM_HOST_PINNED:
        case DC_MEM_HOST_REGISTERED:
            if (quiet_host(l, 0))
                return;
            f.kind = DC_F_HOST_MEMORY;
            f.severity = host_severity(0, pageable_ok(l), &skip);
            if (skip)
                return;
            f.access = a->kind == DC_MEM_HOST_PINNED ? "pinned host memory: legal, read over PCIe"
                                                     : "registered host memory: legal, read over PCIe";
            emit_word(c, &f, a, w);
            return;
        default:
            break;
        }
        if (dc_reg_may_access(a, l->device)) {
            if (a->owner == l->device)
                return;
            if (dc_opt.peer == DC_POLICY_IGNORE)
                return;
            f.kind = DC_F_PEER_ACCESS;
            f.severity = dc_opt.peer == DC_POLICY_ERROR ? DC_SEV_ERROR : DC_SEV_WARNING;
            if (f.severity == DC_SEV_WARNING && !w->arg)        /* legal: once per (kernel, word, pair) */
                f.key_pair = DC_PEER_PAIR(l->device, a->owner);
            f.access = dc_view_granted_note(a, l->device);
            if (!(a->access & DC_DEV_BIT(l->device)) && a->kind != DC_MEM_POOL)
                f.peer_stack = dc_reg_peer_stack(l->device, a->owner);     /* who enabled it */
        } else {
            f.kind = DC_F_DEVICE_MISMATCH;
            f.severity = DC_SEV_ERROR;
            f.access = dc_view_denied_note(a->kind);
            if (l->origin == DC_ORIGIN_LIBRARY) {
                if (dc_libcall_active == 1)     /* its library call's check covered its operands */
                    return;
                f.severity = DC_SEV_WARNING;    /* weak evidence: check the call at the library's API */
                f.weak = 1;
            }
        }
        emit_word(c, &f, a, w);
        return;
    }
    dc_report_count_operand(l->device, DC_COL_PAGEABLE);
    /* A pointer field is never pageable host memory by itself: a struct
     * passed by value often leaves the fields a kernel does not use unset,
     * and their stack garbage is most often a stale host address (NVIDIA's
     * graphMemoryNodes: validateGPU's negSquareArrays).  Memory devcheck or
     * the driver knows (above) is still checked in every field. */
    if (w->kind == DC_WK_POINTER_FIELD || (w->ev == DC_EV_LAUNCH_SHAPE && !writable_host(w->v)) || quiet_host(l, 1))
        return;
    f.kind = DC_F_HOST_MEMORY;
    f.alloc_known = 0;
    f.severity = host_severity(1, pageable_ok(l), &skip);
    if (skip)
        return;
    f.access = pageable_ok(l) ? "reports pageable memory access (HMM/ATS): legal, slow"
                              : "cannot access pageable host memory";
    emit_word(c, &f, NULL, w);
}

/* The hot path: a clean word (memory of the launch device, managed memory,
 * nothing known) costs a cached registry lookup and no finding struct. */
static __attribute__((noinline)) void check_word(struct ctx *c, const struct word *w)
{
    if (!w->v)
        return;
    if (c->collect) {
        collect_word(c, w);
        return;
    }
    if (w->kind != DC_WK_POINTER_PARAM && w->kind != DC_WK_POINTER_FIELD)
        return;                         /* a word of unknown meaning proves nothing */
    c->judged = 1;
    if (c->cover && dc_libcover_has(c->cover, w->v))
        return;                         /* judged by the library call's check */
    const struct dc_alloc *a = NULL;
    struct dc_alloc tmp;
    int r = resolve(c->l, w->v, &a, &tmp);
    if (r == 0 || (r == 1 && clean(a, c->l->device)))
        return;
    report_word(c, w, r, a);
}

/* The hot path: a word that is 0, or in memory the launch device owns
 * (seen before: the registry's per-thread cache), has nothing to say. */
static inline int word_clean(struct ctx *c, uintptr_t v)
{
    if (!v)
        return 1;
    const struct dc_alloc *a = dc_reg_lookup_ref(v);
    if (!a || !clean(a, c->l->device))
        return 0;
    if (a->kind == DC_MEM_MANAGED)
        c->clean_managed++;
    else
        c->clean_own++;
    return 1;
}

/* The words of parameter i: its class says which are looked at (unknown
 * ones only while collecting an async_error's operands). */
static void scan_param(struct ctx *c, unsigned i)
{
    const struct dc_launch *l = c->l;
    const struct dc_param *p = &l->params[i];
    uint64_t off = p->offset, end = off + p->size;
    struct word w = { .param = (int)i, .ev = p->ev };
    switch (p->cls) {
    case DC_PC_NONPTR:
        return;
    case DC_PC_POINTER:
        if (off % 8 || p->size != 8 || !dc_launch_word(l, (int)i, off, off, &w.v))
            return;
        if (!c->collect && word_clean(c, w.v))
            return;
        w.kind = DC_WK_POINTER_PARAM;
        w.offset = 0;
        w.arg_offset = (uint32_t)off;
        check_word(c, &w);
        return;
    default:
        break;
    }
    if (p->cls == DC_PC_UNKNOWN && !c->collect)
        return;
    for (uint64_t a = (off + 7) & ~(uint64_t)7; a + 8 <= end; a += 8) {
        int cls = DC_WORD_UNKNOWN;
        if (p->cls == DC_PC_WORDS && p->words && off % 8 == 0)
            cls = p->words[(a - off) / 8];
        if (cls == DC_WORD_NONPTR || (cls == DC_WORD_UNKNOWN && !c->collect))
            continue;
        if (!dc_launch_word(l, (int)i, off, a, &w.v))
            continue;
        if (!c->collect && word_clean(c, w.v))
            continue;
        w.kind = cls == DC_WORD_PTR ? DC_WK_POINTER_PARAM : cls == DC_WORD_FIELD ? DC_WK_POINTER_FIELD : DC_WK_UNKNOWN;
        w.offset = (uint32_t)(a - off);
        w.arg_offset = (uint32_t)a;
        check_word(c, &w);
    }
}

/* The word of plan entry pw (0: none to read). */
static inline uintptr_t plan_word(const struct dc_launch *l, const struct dc_pword *pw)
{
    uintptr_t v = 0;
    if (l->args) {
        const unsigned char *p = l->args[pw->param];
        if (p)
            memcpy(&v, p + pw->offset, sizeof v);
    } else if (l->argbuf && (uint64_t)pw->arg_offset + 8 <= l->argbuf_size) {
        memcpy(&v, (const unsigned char *)l->argbuf + pw->arg_offset, sizeof v);
    }
    return v;
}

/* Legal peer traffic (issue 38): device memory of another device that the
 * launch device may access (peer access, an access grant): a peer_access
 * warning keyed per (kernel, parameter, word, device pair), or nothing
 * under peer=ignore (report_word decides the same). */
static inline int legal_peer(const struct dc_alloc *a, int device)
{
    return a->kind != DC_MEM_MANAGED && a->kind != DC_MEM_HOST_PAGEABLE && a->kind != DC_MEM_HOST_PINNED &&
           a->kind != DC_MEM_HOST_REGISTERED && a->owner != device && dc_reg_may_access(a, device);
}

/* A word of the plan that is not clean at a glance: the whole check, unless the thread's
 * word memo (core/verdict/wmemo.h) knows it: legal peer traffic of a (kernel, word, device
 * pair) already reported, counted with no stack at all; any other repeat whose stack is
 * this launch's. */
static __attribute__((noinline)) void plan_word_check(struct ctx *c, const struct dc_pword *pw, uintptr_t v)
{
    const struct dc_launch *l = c->l;
    int memo = dc_opt.mode == DC_MODE_REPORT && !c->collect && l->origin != DC_ORIGIN_LIBRARY;
    uint64_t rg = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    uint64_t kg = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    int peer = -1;              /* the owner of legal peer traffic, decided from its pair */
    if (memo && dc_opt.peer != DC_POLICY_ERROR &&
        (pw->kind == DC_WK_POINTER_PARAM || pw->kind == DC_WK_POINTER_FIELD)) {
        const struct dc_alloc *a = dc_reg_lookup_ref(v);
        if (a && legal_peer(a, l->device)) {
            peer = a->owner;
            if (dc_opt.peer == DC_POLICY_IGNORE) {
                dc_report_count_operand(l->device, peer);
                c->nrep++;
                c->rep = (struct dc_lmemo_rep){ (unsigned)(pw - l->pwords), peer, 0, { NULL, 0 } };
                return;
            }
            const struct dc_wmemo *pm = dc_wmemo_find(l->kernel_key, pw, DC_WMEMO_PEER(peer), l->device, 0, kg);
            if (pm && dc_report_repeat_ref(&pm->ref)) {
                dc_report_count_operand(l->device, pm->col);
                c->nrep++;
                c->rep = (struct dc_lmemo_rep){ (unsigned)(pw - l->pwords), pm->col, 0, pm->ref };
                return;
            }
        }
    }
    const struct dc_wmemo *m = memo && peer < 0 ? dc_wmemo_find(l->kernel_key, pw, v, l->device, rg, kg) : NULL;
    if (m) {
        c->judged = 1;
        if (!c->have_stack) {
            c->launch_stack = dc_stack_capture_finding(0, (uintptr_t)l->kernel_key);
            c->have_stack = 1;
        }
        if (c->launch_stack == m->stack && dc_report_repeat_ref(&m->ref)) {
            dc_report_count_operand(l->device, m->col);
            c->errors += m->error;
            c->nrep++;
            c->rep = (struct dc_lmemo_rep){ (unsigned)(pw - l->pwords), m->col, m->stack, m->ref };
            return;
        }
    }
    if (word_clean(c, v))
        return;
    struct word w = { .param = (int)pw->param, .offset = pw->offset, .arg_offset = pw->arg_offset,
                      .v = v, .kind = (enum dc_word_kind)pw->kind, .ev = pw->ev };
    unsigned emitted = c->emitted;
    int errors = c->errors;
    c->repeat_col = NO_REPEAT;
    check_word(c, &w);
    if (peer >= 0 && c->emitted == emitted + 1 && c->repeat_col == peer)
        dc_wmemo_put(&(struct dc_wmemo){ l->kernel_key, pw, DC_WMEMO_PEER(peer), 0, kg, l->device, peer, 0, 0, 0,
                                         c->repeat });
    else if (memo && c->emitted == emitted + 1 && c->repeat_col != NO_REPEAT && c->have_stack && c->launch_stack)
        dc_wmemo_put(&(struct dc_wmemo){ l->kernel_key, pw, v, rg, kg, l->device, c->repeat_col,
                                         c->errors - errors, c->launch_stack, 0, c->repeat });
}

/* The kernel's plan: only the words that can prove something.  The hot
 * loop (arguments as an array of pointers, a device below DC_MAX_DEVICES,
 * the thread's registry cache there): a word seen before in the launch
 * device's own memory is one probe of the cache, whose slot says which
 * device owns it; the cache's generation is read once per launch, again
 * after a word that needed more.  Anything else (managed
 * memory included) takes word_clean and the whole check. */
static __attribute__((noinline)) void scan_plan(struct ctx *c, const struct dc_launch *l)
{
    const struct dc_pword *pw = l->pwords, *end = pw ? pw + l->npwords : pw;     /* NULL + 0 is undefined */
    void *const *args = l->args;
    const unsigned dev = (unsigned)l->device;
    const struct dc_reg_tc *tc = dc_reg_tcache;
    if (!args || !tc || dev >= DC_MAX_DEVICES) {
        for (; pw < end; pw++) {
            uintptr_t v = plan_word(l, pw);
            if (v)
                plan_word_check(c, pw, v);
        }
        return;
    }
    uint64_t g = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    const __typeof__(tc->own[0]) bit = (__typeof__(tc->own[0]))1 << dev;
    unsigned own = 0;
    for (; pw < end; pw++) {
        const unsigned char *p = args[pw->param];
        uintptr_t v;
        if (!p)
            continue;
        memcpy(&v, p + pw->offset, sizeof v);
        if (!v)
            continue;
        size_t i = dc_reg_tc_index(v);
        if (__builtin_expect(tc->addr[i] == v && tc->gen[i] == g && (tc->own[i] & bit), 1)) {
            own++;
            continue;
        }
        if (tc->addr[i ^ 1] == v && tc->gen[i ^ 1] == g && (tc->own[i ^ 1] & bit)) {     /* the other way */
            own++;
            continue;
        }
        plan_word_check(c, pw, v);      /* may have filled the cache: tc stays (freed only at thread exit) */
        g = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    }
    c->clean_own += own;
}

/* The words of every parameter; without a layout, the packed buffer's words
 * (of unknown meaning: looked at only while collecting).  A planned launch
 * that is not collecting takes scan_plan instead (dc_check_launch). */
static void scan_launch(struct ctx *c)
{
    const struct dc_launch *l = c->l;
    if (l->layout_known) {
        for (unsigned i = 0; i < l->nparams && l->params; i++)
            scan_param(c, i);
    } else if (l->argbuf && c->collect) {
        for (uint64_t a = 0; a + 8 <= l->argbuf_size; a += 8) {
            struct word w = { .param = -1, .offset = (uint32_t)a, .arg_offset = (uint32_t)a, .kind = DC_WK_BUFFER };
            memcpy(&w.v, (const unsigned char *)l->argbuf + a, sizeof w.v);
            check_word(c, &w);
        }
    }
}

int dc_check_launch(const struct dc_launch *l)
{
    if (!l || dc_opt.mode == DC_MODE_OFF)
        return 0;
    int first_unchecked = 0;
    int unchecked = !l->layout_known;
    /* no filter and a checked launch: selected, without asking filter.c */
    if ((unchecked || dc_name_filters_set()) && !dc_filter_selected(l, unchecked, &first_unchecked))
        return 0;

    struct ctx c;                       /* fl is filled when a finding needs it */
    c.l = l;
    c.have_fl = c.have_stack = c.errors = c.collect = 0;
    c.ops = NULL;
    c.nops = 0;
    c.launch_stack = 0;
    c.clean_own = c.clean_managed = 0;
    c.emitted = 0;
    c.repeat_col = NO_REPEAT;
    c.cover = NULL;
    c.judged = 0;
    c.nrep = 0;
    uint64_t rg = 0, kg = 0;
    if (__builtin_expect(dc_libcall_active == 1, 0) && l->origin == DC_ORIGIN_LIBRARY && dc_libcover.n &&
        l->stream == dc_libcover.stream && l->device == dc_libcover.device)
        c.cover = &dc_libcover;
    if (c.cover) {                      /* before the lookups: a change since makes the memo stale */
        rg = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
        kg = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    }
    if (l->current_device >= 0 && l->device >= 0 && l->current_device != l->device) {
        struct dc_finding f;
        memset(&f, 0, sizeof f);
        f.kind = DC_F_STREAM_MISMATCH;
        f.severity = DC_SEV_ERROR;
        emit(&c, &f);
    }
    if (l->device < 0) {
        dc_logv(1, "launch of %s with an unknown device: not checked", l->kernel ? l->kernel : "?");
        dc_report_count_launch(0, l->path);
        return c.errors;
    }
    if (unchecked) {
        struct dc_finding f;
        memset(&f, 0, sizeof f);
        f.kind = DC_F_UNCHECKED_KERNEL;
        f.severity = DC_SEV_INFO;
        f.launch = finding_launch(&c);
        f.launch_stack = first_unchecked ? launch_stack(&c) : 0;
        f.launch_stack_in_key = 0;      /* once per kernel; repeats count */
        f.reason = l->unchecked ? l->unchecked : "no parameter layout";
        dc_report_finding(&f);
        dc_report_count_launch(0, l->path);
        return c.errors;
    }
    struct dc_launch_counts *counts = dc_counts();
    dc_counts_launch(counts, 1, l->path);       /* first: a halt on a finding of this launch counts it */
    /* the thread's memo of its last clean launch: the generations before the lookups */
    uint64_t mrg = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);
    uint64_t mkg = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    if (__builtin_expect(l->words_planned, 1))
        scan_plan(&c, l);
    else
        scan_launch(&c);
    if (l->words_planned && l->args && l->kernel_key && !c.emitted && (c.nrep == 1 || !c.judged) && !c.cover &&
        l->npwords <= DC_LMEMO_WORDS && dc_opt.mode == DC_MODE_REPORT && dc_opt.verbosity < 2 &&
        !dc_name_filters_set() && (l->current_device < 0 || l->current_device == l->device))
        dc_lmemo_keep(l, c.clean_own, c.clean_managed, c.nrep ? &c.rep : NULL, mrg, mkg);
    dc_counts_clean(counts, l->device, c.clean_own, c.clean_managed);   /* the HTML access matrix */
    if (c.cover && !c.judged && !c.emitted && l->path == DC_PATH_INTERPOSE && l->args && l->words_planned &&
        dc_opt.mode == DC_MODE_REPORT && !dc_name_filters_set())     /* a library call's clean kernel */
        dc_libcall_launch_keep(l->kernel_key, l->device, l->stream, l->args, l->pwords, l->npwords, rg, kg,
                               c.clean_own, c.clean_managed);
    if (__builtin_expect(dc_opt.verbosity >= 2, 0))
        dc_logv(2, "checked %s on cuda:%d (%u params): %d errors", l->kernel ? l->kernel : "?",
                l->device, l->layout_known ? l->nparams : 0, c.errors);
    return c.errors;
}

/* ---- library calls (core/verdict/libcall.h) ---------------------------------------------------- */

/* A library call as a launch without a kernel: its identity (the dedup
 * key, the stack cache's) is the entry point's name; judged by the strict
 * rules (the header says each argument is a device pointer); never
 * rewritten.  c reports it. */
static void libcall_launch(struct dc_launch *l, struct ctx *c, const char *api, int device, uintptr_t stream)
{
    memset(l, 0, sizeof *l);
    l->kernel_key = api;
    l->api = api;
    l->device = device;
    l->current_device = -1;
    l->stream = stream;
    l->pageable_ok = -1;
    l->path = DC_PATH_INTERPOSE;
    l->origin = DC_ORIGIN_UNKNOWN;
    l->no_rewrite = DC_NO_REWRITE_LIBCALL;
    memset(c, 0, sizeof *c);
    c->l = l;
    dc_view_launch(&c->fl, l);
    c->fl.origin = NULL;                /* no kernel image to name */
    c->have_fl = 1;
}

/* nclean (may be NULL): the clean arguments' counts (own, managed memory),
 * nclean[0] ~0u when some argument was not clean.  Each argument's memory
 * joins the call's cover (its allocation, else the address alone). */
static int check_libcall(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                         unsigned *nclean)
{
    struct dc_launch l;
    struct ctx c;
    int made = 0;                       /* l and c: made at the first argument that is not clean */
    unsigned cnt[2] = { 0, 0 };         /* word_clean's counts: own memory, managed memory */
    struct dc_libcover *cv = dc_libcover.device == device && dc_libcover.stream == stream ? &dc_libcover : NULL;
    for (unsigned i = 0; i < n; i++) {
        uintptr_t v = args[i].ptr;
        if (!v)
            continue;
        const struct dc_alloc *at = dc_reg_lookup_ref(v);
        if (cv && cv->n < DC_LIBCOVER_MAX) {
            cv->base[cv->n] = at ? at->base : v;
            cv->size[cv->n++] = at ? at->size : 1;
            cv->id = 0;
        }
        if (at && clean(at, device)) {
            cnt[at->kind == DC_MEM_MANAGED]++;
            continue;
        }
        if (!made++)
            libcall_launch(&l, &c, api, device, stream);
        if (args[i].host_ok) {          /* only another device's memory can be wrong here */
            const struct dc_alloc *a = NULL;
            struct dc_alloc tmp;
            int r = resolve(&l, args[i].ptr, &a, &tmp);
            if (r != 1 || a->kind == DC_MEM_HOST_PINNED || a->kind == DC_MEM_HOST_REGISTERED ||
                a->kind == DC_MEM_HOST_PAGEABLE)
                continue;
        }
        struct word w = { .param = (int)i, .v = args[i].ptr, .kind = DC_WK_POINTER_PARAM, .arg = args[i].name };
        check_word(&c, &w);
    }
    if (nclean)
        nclean[0] = made ? ~0u : cnt[0], nclean[1] = cnt[1];
    dc_counts_clean(dc_counts(), device, cnt[0] + (made ? c.clean_own : 0), cnt[1] + (made ? c.clean_managed : 0));
    return made ? c.errors : 0;
}

int dc_check_libcall_full(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n)
{
    if (!api || !args || dc_opt.mode == DC_MODE_OFF || device < 0) {
        dc_libcover.n = 0;              /* a call not checked covers nothing */
        dc_libcover.id = 0;
        return 0;
    }
    uint64_t t = DC_STATS_CHECK_BEGIN();
    if (t)
        dc_stats_count_libcall();
    unsigned nclean[2];
    int errors = 0;
    if (dc_libcall_clean_again(api, device, stream, args, n, nclean)) {
        dc_counts_clean(dc_counts(), device, nclean[0], nclean[1]);
    } else {
        dc_libcover.n = 0;              /* this call's, built by its check */
        dc_libcover.id = 0;
        dc_libcover.device = device;
        dc_libcover.stream = stream;
        uint64_t gen = __atomic_load_n(&dc_reg_gen, __ATOMIC_ACQUIRE);     /* before the lookups */
        errors = check_libcall(api, device, stream, args, n, nclean);
        dc_libcall_clean_keep(api, device, stream, args, n, gen, nclean);
    }
    DC_STATS_CHECK_END(DC_T_LIBCALL, t);
    return errors;
}

int dc_check_libcall_array(const char *api, int device, uintptr_t stream, const char *name, uintptr_t array,
                           int64_t count)
{
    if (!api || !name || !array || count <= 0 || dc_opt.mode == DC_MODE_OFF || device < 0)
        return 0;
    struct dc_alloc a;
    if (dc_reg_lookup(array, &a) != 0 || (a.kind != DC_MEM_HOST_PINNED && a.kind != DC_MEM_HOST_REGISTERED) ||
        (array & 7) != 0)
        return 0;
    uint64_t room = (a.base + a.size - array) / sizeof(uintptr_t);
    uint64_t n = (uint64_t)count < room ? (uint64_t)count : room;
    if (n > DC_LIB_ARRAY_MAX)
        n = DC_LIB_ARRAY_MAX;
    int errors = 0;
    struct dc_lib_arg el[32];
    for (uint64_t i = 0; i < n; i += 32) {
        unsigned k = 0;
        for (; k < 32 && i + k < n; k++) {
            uintptr_t v;
            memcpy(&v, (const void *)(array + (i + k) * sizeof v), sizeof v);
            el[k] = (struct dc_lib_arg){ .name = name, .ptr = v };
        }
        errors += check_libcall(api, device, stream, el, k, NULL);
    }
    return errors;
}

void dc_check_libcall_stream(const char *api, int device, uintptr_t stream, int stream_device)
{
    if (!api || dc_opt.mode == DC_MODE_OFF || device < 0 || stream_device < 0 || stream_device == device)
        return;
    struct dc_launch l;
    struct ctx c;
    libcall_launch(&l, &c, api, stream_device, stream);
    l.current_device = device;          /* as a launch: the stream's device, and the device the call makes current */
    dc_view_launch(&c.fl, &l);
    c.fl.origin = NULL;
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_STREAM_MISMATCH;
    f.severity = DC_SEV_ERROR;
    f.argument = "stream";
    emit(&c, &f);
}

void dc_check_libcall_async(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                            const char *error)
{
    if (!api || !args || dc_opt.mode == DC_MODE_OFF || device < 0)
        return;
    struct dc_launch l;
    struct ctx c;
    struct dc_opnd ops[DC_ASYNC_OPERANDS_MAX];
    libcall_launch(&l, &c, api, device, stream);
    c.collect = 1;                      /* collects; counts nothing */
    c.ops = ops;
    c.cap = DC_ASYNC_OPERANDS_MAX;
    for (unsigned i = 0; i < n; i++) {
        struct word w = { .param = (int)i, .v = args[i].ptr, .kind = DC_WK_POINTER_PARAM, .arg = args[i].name };
        unsigned before = c.nops;
        check_word(&c, &w);             /* collects */
        if (c.nops > before && args[i].host_ok && !ops[before].alloc_known)
            ops[before].accessible = 1; /* a by-value tensor: the library reads it on the host */
    }
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_ASYNC_ERROR;
    f.severity = DC_SEV_ERROR;
    f.error = error ? error : "unknown error";
    f.ops = ops;
    f.nops = c.nops;
    f.argument = "";
    for (unsigned k = 0; k < c.nops; k++)      /* the suspect: the first the call's device may not access */
        if (!ops[k].accessible) {
            dc_view_suspect(&f, &ops[k]);
            f.argument = ops[k].argument;
            break;
        }
    f.launch = finding_launch(&c);
    f.launch_stack = launch_stack(&c);
    f.launch_stack_in_key = 1;
    dc_report_finding(&f);
}

/* ---- sync=1 ----------------------------------------------------------------------------- */

void dc_check_async_error(const struct dc_launch *l, const char *error)
{
    if (!l || dc_opt.mode == DC_MODE_OFF)
        return;
    int first_unchecked;
    if (!dc_filter_selected(l, 0, &first_unchecked))
        return;
    struct dc_opnd ops[4 * DC_ASYNC_OPERANDS_MAX];     /* the first 16 by suspicion are reported */
    struct ctx cc = { .l = l, .collect = 1, .ops = ops, .cap = 4 * DC_ASYNC_OPERANDS_MAX };  /* counts nothing */
    struct ctx *c = &cc;
    if (l->device >= 0)
        scan_launch(c);
    dc_view_suspects_first(c->ops, c->nops);
    if (c->nops > DC_ASYNC_OPERANDS_MAX)
        c->nops = DC_ASYNC_OPERANDS_MAX;
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_ASYNC_ERROR;
    f.severity = DC_SEV_ERROR;
    f.error = error ? error : "unknown error";
    f.ops = c->ops;
    f.nops = c->nops;
    /* the suspect: the first operand in that order, when the launch device
     * may not access it */
    if (c->nops && !c->ops[0].accessible)
        dc_view_suspect(&f, &c->ops[0]);
    f.launch = finding_launch(c);
    f.launch_stack = launch_stack(c);
    f.launch_stack_in_key = 1;
    dc_report_finding(&f);
}

void dc_check_reset(void)
{
    memset(dc_lmemo, 0, sizeof dc_lmemo);      /* the calling thread's */
    dc_filter_reset();
}
