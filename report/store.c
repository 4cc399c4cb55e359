/* store: the findings kept once each, and their counters (see store.h).
 * A repeat is one hash lookup and an increment; only a new finding
 * allocates (its record, its kernel's entry, its JSON line). */
#include "report/store.h"
#include "report/suppress.h"

#include <stdlib.h>
#include <string.h>

#define HASH_NONFATAL_OOM 1
static int store_oom;
#define uthash_nonfatal_oom(obj) do { (void)(obj); store_oom = 1; } while (0)
#include <uthash.h>

#define MAX_FINDINGS 100000

struct dc_stored {
    struct dc_store_key key;
    UT_hash_handle hh;
    uint64_t id;
    uint64_t count;
    enum dc_severity severity;
    int supp;                   /* index of the suppression that matched it, -1: none */
    char *json_head;            /* the JSON line up to "count": */
    char *json_tail;            /* after the count value, with the newline */
    struct dc_stored *next;     /* in id order, for the exit updates */
    uint64_t window;            /* the window of its last occurrence (dc_store_window_open) */
    uint64_t window_count;      /* its occurrences in that window */
};

struct kset {
    uint64_t kernel;
    UT_hash_handle hh;
};

static struct dc_stored *findings, *first_rec, *last_rec;
static struct kset *kernels;
static uint64_t nfindings, nkernels, ncalls, nframework, nexpected, sev_count[3], dropped;
static unsigned long errors_atomic;
static uint64_t suppressed;                             /* occurrences; atomic */
static uint64_t generation = 1;                         /* atomic; bumped by dc_store_reset */
static size_t json_bytes;                               /* the JSON lines kept */
static uint64_t window = 1;                             /* the current window; atomic */

/* One occurrence in the current window (counted without the lock, as the
 * repeats are: a window's count is exact unless a thread counts across the
 * window's opening). */
static void count_in_window(struct dc_stored *r)
{
    uint64_t w = __atomic_load_n(&window, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&r->window, __ATOMIC_RELAXED) != w) {
        __atomic_store_n(&r->window_count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&r->window, w, __ATOMIC_RELEASE);
    }
    __atomic_fetch_add(&r->window_count, 1, __ATOMIC_RELAXED);
}

static uint64_t fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The kernel a finding names, or (a library call's: f->argument set) the
 * entry point, in its own hash space. */
static uint64_t kernel_hash(const struct dc_finding *f)
{
    const struct dc_finding_launch *l = f->launch;
    uint64_t h = 0xcbf29ce484222325ull;
    if (f->argument && !l->kernel)
        return fnv1a(l->api ? l->api : "", l->api ? strlen(l->api) : 0, h ^ 2);
    if (l->kernel)
        return l->kernel_hash ? l->kernel_hash : dc_kernel_name_hash(l->kernel);
    uintptr_t k = (uintptr_t)l->kernel_key;
    return fnv1a(&k, sizeof k, h ^ 1);
}

/* Counts k once in *count (nkernels, or ncalls for a library call's). */
static void note_kernel(uint64_t k, uint64_t *count)
{
    struct kset *s;
    HASH_FIND(hh, kernels, &k, sizeof k, s);
    if (s)
        return;
    s = calloc(1, sizeof *s);
    if (!s)
        return;
    s->kernel = k;
    store_oom = 0;
    HASH_ADD(hh, kernels, kernel, sizeof s->kernel, s);
    if (store_oom) {
        free(s);
        return;
    }
    (*count)++;
}

void dc_store_key(const struct dc_finding *f, struct dc_store_key *key)
{
    memset(key, 0, sizeof *key);
    key->kind = f->kind;
    key->param = f->has_operand ? f->param : -1;
    key->kernel = kernel_hash(f);
    key->word_offset = f->has_operand ? f->word_offset : 0;
    key->alloc_stack = f->has_operand && f->alloc_known && !f->key_pair ? f->alloc.alloc_stack : 0;
    key->launch_stack = f->launch_stack_in_key && !f->key_pair ? f->launch_stack : 0;
    key->action = f->action;
    key->pair = f->key_pair;
}

void dc_store_count_repeat(struct dc_stored *r)
{
    __atomic_fetch_add(&r->count, 1, __ATOMIC_RELAXED);
    count_in_window(r);
    if (r->supp >= 0) {
        dc_supp_add(r->supp, 1);
        __atomic_fetch_add(&suppressed, 1, __ATOMIC_RELAXED);
    }
}

struct dc_stored *dc_store_repeat(const struct dc_store_key *key)
{
    struct dc_stored *r;
    HASH_FIND(hh, findings, key, sizeof *key, r);
    if (r)
        dc_store_count_repeat(r);
    return r;
}

uint64_t dc_store_generation(void)
{
    return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

uint64_t dc_store_repeats(void)
{
    uint64_t n = 0;
    for (const struct dc_stored *r = findings; r; r = r->hh.next)
        if (r->supp < 0)
            n += __atomic_load_n(&r->count, __ATOMIC_RELAXED) - 1;
    return n;
}

size_t dc_store_bytes(void)
{
    size_t n = (size_t)HASH_COUNT(findings) * sizeof(struct dc_stored) + (size_t)HASH_COUNT(kernels) * sizeof(struct kset);
    if (findings)
        n += HASH_OVERHEAD(hh, findings);
    if (kernels)
        n += HASH_OVERHEAD(hh, kernels);
    return n + json_bytes;
}

struct dc_stored *dc_store_add(const struct dc_store_key *key, enum dc_severity sev)
{
    if (nfindings >= MAX_FINDINGS) {
        dropped++;
        return NULL;
    }
    struct dc_stored *r = calloc(1, sizeof *r);
    if (!r) {
        dropped++;
        return NULL;
    }
    r->key = *key;
    r->count = 1;
    r->severity = sev;
    r->supp = -1;
    count_in_window(r);
    store_oom = 0;
    HASH_ADD(hh, findings, key, sizeof r->key, r);
    if (store_oom) {
        free(r);
        dropped++;
        return NULL;
    }
    return r;
}

void dc_store_suppress(struct dc_stored *r, int supp)
{
    r->supp = supp;
    __atomic_fetch_add(&suppressed, 1, __ATOMIC_RELAXED);
}

uint64_t dc_store_number(struct dc_stored *r, const struct dc_finding *f, int expected)
{
    r->id = ++nfindings;
    if (last_rec)
        last_rec->next = r;
    else
        first_rec = r;
    last_rec = r;
    sev_count[f->severity]++;
    if (f->severity == DC_SEV_ERROR && expected)
        nexpected++;                    /* devcheck_expected: error_exitcode does not count it */
    else if (f->severity == DC_SEV_ERROR)
        __atomic_fetch_add(&errors_atomic, 1, __ATOMIC_RELAXED);
    if (!dc_finding_framework(f))     /* no kernel ran */
        note_kernel(r->key.kernel, f->argument ? &ncalls : &nkernels);
    else
        nframework++;
    return r->id;
}

void dc_store_keep_json(struct dc_stored *r, const char *line, size_t count_at)
{
    /* "1" follows count_at: keep what surrounds it for the exit update */
    r->json_head = strndup(line, count_at);
    r->json_tail = strdup(line + count_at + 1);
    json_bytes += (r->json_head ? count_at + 1 : 0) + (r->json_tail ? strlen(r->json_tail) + 1 : 0);
}

const struct dc_stored *dc_store_next(const struct dc_stored *r)
{
    return r ? r->next : first_rec;
}

uint64_t dc_store_line(const struct dc_stored *r, const char **head, const char **tail)
{
    *head = r->json_head;
    *tail = r->json_tail;
    return __atomic_load_n(&r->count, __ATOMIC_RELAXED);
}

void dc_store_window_open(void)
{
    __atomic_fetch_add(&window, 1, __ATOMIC_RELEASE);
}

uint64_t dc_store_window_count(const struct dc_stored *r)
{
    return __atomic_load_n(&r->window, __ATOMIC_ACQUIRE) == __atomic_load_n(&window, __ATOMIC_ACQUIRE)
               ? __atomic_load_n(&r->window_count, __ATOMIC_RELAXED) : 0;
}

void dc_store_stats(struct dc_report_stats *s)
{
    s->findings = nfindings;
    s->errors = sev_count[DC_SEV_ERROR];
    s->warnings = sev_count[DC_SEV_WARNING];
    s->infos = sev_count[DC_SEV_INFO];
    s->kernels = nkernels;
    s->calls = ncalls;
    s->framework = nframework;
    s->expected = nexpected;
    s->dropped = dropped;
    s->suppressed = __atomic_load_n(&suppressed, __ATOMIC_RELAXED);
}

unsigned long dc_store_errors(void)
{
    return __atomic_load_n(&errors_atomic, __ATOMIC_RELAXED);
}

void dc_store_reset(void)
{
    __atomic_fetch_add(&generation, 1, __ATOMIC_RELEASE);     /* before the records go */
    struct dc_stored *r, *tmp;
    HASH_ITER(hh, findings, r, tmp) {
        HASH_DEL(findings, r);
        free(r->json_head);
        free(r->json_tail);
        free(r);
    }
    struct kset *k, *ktmp;
    HASH_ITER(hh, kernels, k, ktmp) {
        HASH_DEL(kernels, k);
        free(k);
    }
    first_rec = last_rec = NULL;
    nfindings = nkernels = ncalls = nframework = nexpected = dropped = suppressed = 0;
    json_bytes = 0;
    memset(sev_count, 0, sizeof sev_count);
    __atomic_store_n(&errors_atomic, 0, __ATOMIC_RELAXED);
}
