/* check: the launch check (see check.h).
 *
 * Per launch: kernel filters (decided once per kernel and cached), the
 * stream/current-device rule, then every 8-byte-aligned word of every
 * parameter: registry lookup first; a value the registry does not know is
 * tested for being mapped host memory with mincore() (never dereferenced).
 * The launch stack is captured only when the launch has a finding. */
#include "core/check.h"
#include "report/finding.h"
#include "report/report.h"
#include "report/stack.h"
#include "report/symbolize.h"
#include "report/forklock.h"
#include "core/options.h"
#include "core/registry.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HASH_NONFATAL_OOM 1
static int chk_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); chk_oom = 1; } while (0)
#include <uthash.h>

/* What we remember per kernel: the filter decision, and whether its
 * unchecked_kernel note has been made. */
struct kinfo {
    uintptr_t key;
    UT_hash_handle hh;
    int selected;
    int unchecked_seen;
};

static pthread_rwlock_t k_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct kinfo *kinfos;

static uintptr_t kernel_id(const struct dc_launch *l)
{
    if (l->kernel_key)
        return (uintptr_t)l->kernel_key;
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = l->kernel ? l->kernel : ""; *c; c++) {
        h ^= (unsigned char)*c;
        h *= 0x100000001b3ull;
    }
    return (uintptr_t)(h | 1);      /* odd: never a real handle's alignment */
}

/* Does `name` match one of the comma-separated patterns?  "=x": exact match
 * with the mangled name, the demangled name, or the demangled name without its
 * parameter list; otherwise a substring of the mangled or demangled name. */
static int matches(const char *list, const char *mangled, const char *demangled)
{
    const char *p = list;
    size_t bare = strcspn(demangled, "(");
    while (*p) {
        size_t n = strcspn(p, ",");
        const char *pat = p;
        p += n;
        if (*p == ',')
            p++;
        while (n && (*pat == ' ')) pat++, n--;
        while (n && pat[n - 1] == ' ') n--;
        if (!n)
            continue;
        if (*pat == '=') {
            pat++, n--;
            if ((strlen(mangled) == n && !strncmp(mangled, pat, n)) ||
                (strlen(demangled) == n && !strncmp(demangled, pat, n)) ||
                (bare == n && !strncmp(demangled, pat, n)))
                return 1;
            continue;
        }
        char tmp[512];
        if (n >= sizeof tmp)
            n = sizeof tmp - 1;
        memcpy(tmp, pat, n);
        tmp[n] = 0;
        if (strstr(mangled, tmp) || strstr(demangled, tmp))
            return 1;
    }
    return 0;
}

static int decide_selected(const struct dc_launch *l)
{
    const char *inc = dc_opt.kernel_name, *exc = dc_opt.kernel_name_exclude;
    if ((!inc || !*inc) && (!exc || !*exc))
        return 1;
    const char *mangled = l->kernel ? l->kernel : "";
    char dem[1024];
    dc_demangle(mangled, dem, sizeof dem);
    if (exc && *exc && matches(exc, mangled, dem))
        return 0;
    if (inc && *inc && !matches(inc, mangled, dem))
        return 0;
    return 1;
}

/* Returns the kernel's cached info (a copy), creating it on first sight. */
static struct kinfo kernel_info(const struct dc_launch *l, int mark_unchecked, int *first_unchecked)
{
    uintptr_t id = kernel_id(l);
    struct kinfo *k, copy;
    *first_unchecked = 0;
    pthread_rwlock_rdlock(&k_lock);
    HASH_FIND(hh, kinfos, &id, sizeof id, k);
    if (k && !(mark_unchecked && !k->unchecked_seen)) {
        copy = *k;
        pthread_rwlock_unlock(&k_lock);
        return copy;
    }
    pthread_rwlock_unlock(&k_lock);

    int selected = decide_selected(l);
    pthread_rwlock_wrlock(&k_lock);
    HASH_FIND(hh, kinfos, &id, sizeof id, k);
    if (!k) {
        k = calloc(1, sizeof *k);
        if (k) {
            k->key = id;
            k->selected = selected;
            chk_oom = 0;
            HASH_ADD(hh, kinfos, key, sizeof k->key, k);
            if (chk_oom) {
                free(k);
                k = NULL;
            }
        }
    }
    if (!k) {               /* out of memory: decide without caching */
        memset(&copy, 0, sizeof copy);
        copy.selected = selected;
        *first_unchecked = mark_unchecked;
        pthread_rwlock_unlock(&k_lock);
        return copy;
    }
    if (mark_unchecked && !k->unchecked_seen) {
        k->unchecked_seen = 1;
        *first_unchecked = 1;
    }
    copy = *k;
    pthread_rwlock_unlock(&k_lock);
    return copy;
}

void dc_check_reset(void)
{
    pthread_rwlock_wrlock(&k_lock);
    struct kinfo *k, *tmp;
    HASH_ITER(hh, kinfos, k, tmp) {
        HASH_DEL(kinfos, k);
        free(k);
    }
    pthread_rwlock_unlock(&k_lock);
}

void dc_check_fork_prepare(void) { pthread_rwlock_wrlock(&k_lock); }
void dc_check_fork_parent(void)  { pthread_rwlock_unlock(&k_lock); }
void dc_check_fork_child(void)  { dc_rwlock_fork_child(&k_lock, 0); }

/* ---- one launch ------------------------------------------------------------------------ */

struct ctx {
    const struct dc_launch *l;
    uint32_t launch_stack;
    int have_stack;
    int errors;
    /* dc_check_async_error: collect the operands instead of deciding */
    int collect;
    struct dc_opnd *ops;        /* DC_ASYNC_OPERANDS_MAX of them */
    unsigned nops;
};

static uint32_t launch_stack(struct ctx *c)
{
    if (!c->have_stack) {
        /* frames: dc_stack_capture <- launch_stack <- emit <- check_word ... <-
         * dc_check_launch <- the interposer; report time drops libdevcheck's
         * own frames, so no exact skip is needed. */
        c->launch_stack = dc_stack_capture(0);
        c->have_stack = 1;
    }
    return c->launch_stack;
}

/* mode=migrate: an operand the launch device cannot use at all. */
static int migratable(const struct dc_finding *f)
{
    return f->kind == DC_F_DEVICE_MISMATCH ||
           (f->kind == DC_F_HOST_MEMORY && !f->alloc_known && f->severity == DC_SEV_ERROR);
}

/* Hands the operand to the caller (l->moves) instead of reporting it; 0 when
 * it cannot (then f says why and is reported). */
static int defer_move(struct ctx *c, struct dc_finding *f, uint32_t arg_offset)
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
    mv->alloc = f->alloc;
    mv->kind = f->kind;
    mv->severity = f->severity;
    mv->access = f->access;
    mv->launch_stack = f->launch_stack;
    mv->to_device = c->l->device;
    return 1;
}

static void emit_at(struct ctx *c, struct dc_finding *f, uint32_t arg_offset)
{
    f->launch = c->l;
    f->launch_stack = launch_stack(c);
    f->launch_stack_in_key = 1;
    if (f->severity == DC_SEV_ERROR)
        c->errors++;
    if (dc_opt.mode == DC_MODE_MIGRATE && f->has_operand && migratable(f)) {
        const char *no_rewrite = c->l->no_rewrite;
        if (!no_rewrite && c->l->path == DC_PATH_CUPTI)
            no_rewrite = DC_NO_REWRITE_CUPTI;   /* its parameters are read-only */
        if (no_rewrite) {
            f->action = DC_ACT_NOT_MIGRATED;
            f->reason = no_rewrite;
        } else if (c->l->moves && defer_move(c, f, arg_offset)) {
            return;                     /* reported by dc_check_moves_report */
        }
    }
    dc_report_finding(f);
}

static void emit(struct ctx *c, struct dc_finding *f)
{
    emit_at(c, f, 0);
}

static int mapped_host(uintptr_t v)
{
    static long page;
    long ps = __atomic_load_n(&page, __ATOMIC_RELAXED);
    if (!ps) {
        ps = sysconf(_SC_PAGESIZE);
        if (ps <= 0)
            ps = 4096;
        __atomic_store_n(&page, ps, __ATOMIC_RELAXED);
    }
    /* user-space canonical addresses above the first 64 KiB only */
    if (v < 0x10000 || v >= ((uintptr_t)1 << 47))
        return 0;
    unsigned char vec;
    return mincore((void *)(v & ~((uintptr_t)ps - 1)), 1, &vec) == 0;
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

static const char *denied_note(const struct dc_alloc *a)
{
    switch (a->kind) {
    case DC_MEM_POOL: return "the pool grants it no access (cudaMemPoolSetAccess)";
    case DC_MEM_VMM:  return "no access granted with cuMemSetAccess";
    default:          return "peer access not enabled";
    }
}

static const char *granted_note(const struct dc_alloc *a, int device)
{
    if (a->access & DC_DEV_BIT(device))
        return a->kind == DC_MEM_VMM ? "access granted with cuMemSetAccess" : "access granted";
    if (a->kind == DC_MEM_POOL)
        return "pool access granted";
    return "peer access enabled";
}

/* dc_check_async_error: every operand the registry knows or that is host
 * memory, with whether the launch device may access it. */
static void collect_word(struct ctx *c, int param, uint32_t word, uintptr_t v)
{
    struct dc_opnd o;
    memset(&o, 0, sizeof o);
    o.param = param;
    o.word_offset = word;
    o.address = v;
    if (dc_reg_lookup(v, &o.alloc) == 0) {
        o.alloc_known = 1;
        o.accessible = o.alloc.kind == DC_MEM_HOST_PAGEABLE ? c->l->pageable_ok
                                                            : dc_reg_may_access(&o.alloc, c->l->device);
    } else if (mapped_host(v)) {
        o.accessible = c->l->pageable_ok;
    } else {
        return;
    }
    if (c->ops && c->nops < DC_ASYNC_OPERANDS_MAX)
        c->ops[c->nops++] = o;
}

static void check_word(struct ctx *c, int param, uint32_t word, uint32_t arg_offset, uintptr_t v)
{
    const struct dc_launch *l = c->l;
    if (!v)
        return;
    if (c->collect) {
        collect_word(c, param, word, v);
        return;
    }
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.has_operand = 1;
    f.param = param;
    f.word_offset = word;
    f.address = v;
    int skip;
    if (dc_reg_lookup(v, &f.alloc) == 0) {
        f.alloc_known = 1;
        const struct dc_alloc *a = &f.alloc;
        switch (a->kind) {
        case DC_MEM_MANAGED:
            return;
        case DC_MEM_HOST_PAGEABLE:      /* not stored by the hooks; if it is, it is host memory */
            f.kind = DC_F_HOST_MEMORY;
            f.severity = host_severity(1, l->pageable_ok, &skip);
            if (skip)
                return;
            f.access = l->pageable_ok ? "reports pageable memory access (HMM/ATS): legal, slow"
                                      : "cannot access pageable host memory";
            emit_at(c, &f, arg_offset);
            return;
        case DC_MEM_HOST_PINNED:
        case DC_MEM_HOST_REGISTERED:
            f.kind = DC_F_HOST_MEMORY;
            f.severity = host_severity(0, l->pageable_ok, &skip);
            if (skip)
                return;
            f.access = a->kind == DC_MEM_HOST_PINNED ? "pinned host memory: legal, read over PCIe"
                                                     : "registered host memory: legal, read over PCIe";
            emit_at(c, &f, arg_offset);
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
            f.access = granted_note(a, l->device);
        } else {
            f.kind = DC_F_DEVICE_MISMATCH;
            f.severity = DC_SEV_ERROR;
            f.access = denied_note(a);
        }
        emit_at(c, &f, arg_offset);
        return;
    }
    if (!mapped_host(v))
        return;
    f.kind = DC_F_HOST_MEMORY;
    f.alloc_known = 0;
    f.severity = host_severity(1, l->pageable_ok, &skip);
    if (skip)
        return;
    f.access = l->pageable_ok ? "reports pageable memory access (HMM/ATS): legal, slow"
                              : "cannot access pageable host memory";
    emit_at(c, &f, arg_offset);
}

static void scan(struct ctx *c, int param, const unsigned char *p, uint64_t start, uint64_t off,
                 uint64_t end)
{
    /* words at 8-aligned absolute offsets a in [off, end), read at p + (a - start) */
    for (uint64_t a = (off + 7) & ~(uint64_t)7; a + 8 <= end; a += 8) {
        uintptr_t v;
        memcpy(&v, p + (a - start), sizeof v);
        check_word(c, param, (uint32_t)(param >= 0 ? a - off : a), (uint32_t)a, v);
    }
}

/* Every word of every parameter (or of the packed buffer without a layout). */
static void scan_launch(struct ctx *c)
{
    const struct dc_launch *l = c->l;
    if (l->layout_known) {
        for (unsigned i = 0; i < l->nparams && l->params; i++) {
            uint64_t off = l->params[i].offset, end = off + l->params[i].size;
            if (l->args) {
                if (l->args[i])
                    scan(c, (int)i, l->args[i], off, off, end);
            } else if (l->argbuf) {
                if (end > l->argbuf_size)
                    end = l->argbuf_size;
                scan(c, (int)i, l->argbuf, 0, off, end);
            }
        }
    } else if (l->argbuf) {
        scan(c, -1, l->argbuf, 0, 0, l->argbuf_size);   /* whole packed buffer */
    }
}

int dc_check_launch(const struct dc_launch *l)
{
    if (!l || dc_opt.mode == DC_MODE_OFF)
        return 0;
    int first_unchecked = 0;
    int unchecked = !l->layout_known && !(l->argbuf && l->argbuf_size);
    struct kinfo k = kernel_info(l, unchecked, &first_unchecked);
    if (!k.selected)
        return 0;

    struct ctx c = { .l = l };
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
        f.launch = l;
        f.launch_stack = first_unchecked ? launch_stack(&c) : 0;
        f.launch_stack_in_key = 0;      /* once per kernel; repeats count */
        dc_report_finding(&f);
        dc_report_count_launch(0, l->path);
        return c.errors;
    }
    dc_report_count_launch(1, l->path);         /* first: a halt on a finding of this launch counts it */
    scan_launch(&c);
    dc_logv(2, "checked %s on cuda:%d (%u params): %d errors", l->kernel ? l->kernel : "?",
            l->device, l->layout_known ? l->nparams : 0, c.errors);
    return c.errors;
}

/* ---- mode=migrate ----------------------------------------------------------------------- */

void dc_check_moves_report(const struct dc_launch *l, struct dc_moves *m)
{
    if (!l || !m)
        return;
    for (unsigned i = 0; i < m->n; i++) {
        const struct dc_move *mv = &m->v[i];
        struct dc_finding f;
        memset(&f, 0, sizeof f);
        f.kind = (enum dc_finding_kind)mv->kind;
        f.severity = (enum dc_severity)mv->severity;
        f.launch = l;
        f.launch_stack = mv->launch_stack;
        f.launch_stack_in_key = 1;
        f.has_operand = 1;
        f.param = mv->param;
        f.word_offset = mv->word_offset;
        f.address = mv->address;
        f.alloc_known = mv->alloc_known;
        f.alloc = mv->alloc;
        f.access = mv->access;
        if (mv->new_address) {
            f.action = DC_ACT_MIGRATED;
            f.to_device = mv->to_device;
            f.moved_bytes = mv->bytes;
            dc_report_count_migrated(mv->bytes);
        } else {
            f.action = DC_ACT_NOT_MIGRATED;
            f.reason = mv->reason ? mv->reason : "not migrated";
        }
        dc_report_finding(&f);
    }
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

void dc_check_count_migrated(uint64_t bytes)
{
    dc_report_count_migrated(bytes);
}

/* ---- sync=1 ----------------------------------------------------------------------------- */

void dc_check_async_error(const struct dc_launch *l, const char *error)
{
    if (!l || dc_opt.mode == DC_MODE_OFF)
        return;
    int first_unchecked;
    struct kinfo k = kernel_info(l, 0, &first_unchecked);
    if (!k.selected)
        return;
    struct dc_opnd ops[DC_ASYNC_OPERANDS_MAX];
    struct ctx cc = { .l = l, .collect = 1, .ops = ops };
    struct ctx *c = &cc;
    if (l->device >= 0 && (l->layout_known || l->argbuf))
        scan_launch(c);
    struct dc_finding f;
    memset(&f, 0, sizeof f);
    f.kind = DC_F_ASYNC_ERROR;
    f.severity = DC_SEV_ERROR;
    f.error = error ? error : "unknown error";
    f.ops = c->ops;
    f.nops = c->nops;
    for (unsigned i = 0; i < c->nops; i++) {
        if (c->ops[i].accessible)
            continue;
        /* the suspect: the first operand the launch device may not access */
        f.has_operand = 1;
        f.param = c->ops[i].param;
        f.word_offset = c->ops[i].word_offset;
        f.address = c->ops[i].address;
        f.alloc_known = c->ops[i].alloc_known;
        f.alloc = c->ops[i].alloc;
        f.access = f.alloc_known ? denied_note(&f.alloc) : "cannot access pageable host memory";
        break;
    }
    f.launch = l;
    f.launch_stack = launch_stack(c);
    f.launch_stack_in_key = 1;
    dc_report_finding(&f);
}
