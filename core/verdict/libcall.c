/* libapi: the library handles' table and sync=1 around library calls
 * (core/verdict/libcall.h).  A small
 * open-addressing table under one mutex: handles are made and destroyed
 * rarely, and looked up once per checked library call.  Full (4096 live
 * handles): a new handle is not remembered (its calls fall back to the
 * current device). */
#include "core/verdict/libcall.h"
#include "core/verdict/capture.h"
#include "core/base/cudacall.h"
#include "core/base/options.h"
#include "core/owner/registry.h"
#include "common/forklock.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096              /* a power of two */

struct slot {
    int kind;                   /* 0: empty; -1: deleted */
    uint64_t h, v;
};
static struct slot table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The lock is a leaf (nothing is called while it is held): its own fork
 * handlers, installed with the first handle, keep it out of a fork. */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void) { dc_mutex_fork_child(&lock); }
static void install_atfork(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

static size_t home(int kind, uint64_t h) { return (size_t)(dc_mix64(h ^ ((uint64_t)kind << 56)) & (SLOTS - 1)); }

/* The slot of (kind, h), or NULL; lock held. */
static struct slot *find(int kind, uint64_t h)
{
    size_t i = home(kind, h);
    for (size_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        if (table[i].kind == 0)
            return NULL;
        if (table[i].kind == kind && table[i].h == h)
            return &table[i];
    }
    return NULL;
}

void dc_libh_set(int kind, uint64_t h, uint64_t v)
{
    if (kind <= 0)
        return;
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&lock);
    struct slot *s = find(kind, h);
    if (!s) {
        size_t i = home(kind, h);
        for (size_t n = 0; n < SLOTS && !s; n++, i = (i + 1) & (SLOTS - 1))
            if (table[i].kind <= 0)
                s = &table[i];
    }
    if (s) {
        s->kind = kind;
        s->h = h;
        s->v = v;
    }
    pthread_mutex_unlock(&lock);
}

int dc_libh_get(int kind, uint64_t h, uint64_t *v)
{
    pthread_mutex_lock(&lock);
    struct slot *s = find(kind, h);
    if (s && v)
        *v = s->v;
    pthread_mutex_unlock(&lock);
    return s != NULL;
}

void dc_libh_forget(int kind, uint64_t h)
{
    pthread_mutex_lock(&lock);
    struct slot *s = find(kind, h);
    if (s)
        s->kind = -1;
    pthread_mutex_unlock(&lock);
}

/* --- sync=1 ---------------------------------------------------------------------- */

__thread int dc_libcall_active __attribute__((tls_model("initial-exec")));

#define SYNC_ARGS 16
struct dc_libsync {
    const char *api;
    int device;
    CUstream stream;
    unsigned n;
    struct dc_lib_arg a[SYNC_ARGS];
    char names[SYNC_ARGS][64];
};

struct dc_libsync *dc_libcall_sync_begin(const char *api, int device, uintptr_t stream,
                                         const struct dc_lib_arg *args, unsigned n)
{
    if (!dc_opt.sync || dc_opt.mode == DC_MODE_OFF || device < 0 || !api)
        return NULL;
    CUstream s = (CUstream)stream;
    if (dc_stream_captured(s) || dc_capture_conflict(s, 0) || DC_CALL(cuStreamSynchronize, s) != CUDA_SUCCESS)
        return NULL;
    struct dc_libsync *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->api = api;
    r->device = device;
    r->stream = s;
    for (unsigned i = 0; i < n && r->n < SYNC_ARGS; i++) {
        if (!args[i].ptr)
            continue;
        snprintf(r->names[r->n], sizeof r->names[r->n], "%s", args[i].name ? args[i].name : "?");
        r->a[r->n] = args[i];
        r->a[r->n].name = r->names[r->n];
        r->n++;
    }
    return r;
}

void dc_libcall_sync_end(struct dc_libsync *r, int ok)
{
    if (!r)
        return;
    if (ok && !dc_capture_conflict(r->stream, 0)) {
        CUresult e = DC_CALL(cuStreamSynchronize, r->stream);
        if (e != CUDA_SUCCESS && e != CUDA_ERROR_NOT_FOUND)
            dc_check_libcall_async(r->api, r->device, (uintptr_t)r->stream, r->a, r->n, dc_err_name(e));
    }
    free(r);
}
