/* hooks_nccl: NCCL's collectives and point-to-point calls checked at their
 * API (preload/hooks_lib.h has the machinery, preload/hooks_lib.def the
 * table): the communicator's device, and its rank (what a rooted collective
 * reads or writes on this rank).  NCCL's symbols are unversioned.
 *
 * Issue 37: NCCL's getters (ncclCommCuDevice, ncclCommUserRank) check the
 * communicator's readiness and push an NVTX range each (seen in Nsight
 * Systems), so devcheck does not call them per collective: a
 * communicator's device and rank are recorded where it is made
 * (ncclCommInitAll: devlist[i] or i, rank i; ncclCommInitRank and
 * ncclCommInitRankConfig: the current device, the rank given;
 * ncclCommSplit: the parent's device, the rank asked once when a rooted
 * collective first needs it) and forgotten at ncclCommDestroy and
 * ncclCommAbort.  A communicator made another way (before devcheck was
 * loaded; ncclCommInitRankScalable and ncclCommShrink, which devcheck does
 * not export so that a program feature-testing them against an older NCCL
 * sees what it sees without devcheck) is asked once, then recorded.
 *
 * A call with a count of 0 reads and writes nothing (NCCL's own argument
 * check returns before looking at the buffers): its buffers are not
 * checked.
 *
 * Groups: between ncclGroupStart and the outermost ncclGroupEnd NCCL only
 * queues the calls; their kernels are launched at ncclGroupEnd.  So a
 * grouped call is checked when it is made, and sync=1 synchronises the
 * group's streams around the outermost ncclGroupEnd, never inside the group
 * (one thread driving several GPUs would wait for ranks not yet launched),
 * attributing an asynchronous error to the first failing call; the kernels
 * ncclGroupEnd launches are judged as kernels inside a checked call. */
#include "preload/hooks_lib.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LIB_THIS NCCL

struct nccl_comm {
    int device, rank;           /* rank -1: not known yet */
};

static void comm_put(void *rec, const void *arg) { *(struct nccl_comm *)rec = *(const struct nccl_comm *)arg; }
static void comm_record(ncclComm_t comm, int device, int rank)
{
    struct nccl_comm c = { device, rank };
    if (comm)
        dc_libd_update(DC_LIBD_NCCL_COMM, P(comm), sizeof c, 1, comm_put, &c);
}

/* The communicator's device, or -1; *rank its rank (-1 unknown); need_rank:
 * a rooted collective, which asks the rank of a split communicator once.
 * The record's hit is dc_libd_get's own (inline, per thread). */
static int nccl_device(ncclComm_t comm, int *rank, int need_rank)
{
    struct nccl_comm c;
    if (!dc_libd_get(DC_LIBD_NCCL_COMM, P(comm), &c, sizeof c)) {
        /* not seen made: asked once, then recorded */
        __typeof__(&ncclCommCuDevice) cd = REAL(ncclCommCuDevice);
        c.device = c.rank = -1;
        if (!cd || cd(comm, &c.device) != ncclSuccess)
            c.device = -1;
        need_rank = 1;
    }
    if (need_rank && c.rank < 0) {
        __typeof__(&ncclCommUserRank) ur = REAL(ncclCommUserRank);
        if (!ur || ur(comm, &c.rank) != ncclSuccess)
            c.rank = -1;
        if (c.device >= 0)
            comm_record(comm, c.device, c.rank);
    }
    *rank = c.rank;
    return c.device;
}

/* --- groups --------------------------------------------------------------------- */

static __thread int group_depth __attribute__((tls_model("initial-exec")));
/* The checked calls of this thread's open group, for sync=1 (at most
 * GROUP_MAX; later ones are not synchronised) and for its kernels at
 * ncclGroupEnd (any: dc_libcall_active). */
#define GROUP_MAX 64
struct grouped {
    const char *api;
    int device;
    uintptr_t stream;
    unsigned n;                 /* 0: not synchronised (sync off, or more arguments than a) */
    struct dc_lib_arg a[2];
};
static __thread struct grouped *group_calls;    /* GROUP_MAX of them, made on first use, freed at thread exit */
static __thread unsigned group_n, group_checked;

/* group_calls is freed when its thread exits: a key's destructor (a
 * program that runs its NCCL groups on short-lived threads would otherwise
 * leak GROUP_MAX records per thread). */
static pthread_key_t group_key;
static pthread_once_t group_once = PTHREAD_ONCE_INIT;
static int group_key_ok;
static void group_free(void *p)
{
    group_calls = NULL;         /* this thread's: a later call makes another */
    free(p);
}
static void group_key_make(void) { group_key_ok = pthread_key_create(&group_key, group_free) == 0; }

static struct grouped *group_alloc(void)
{
    pthread_once(&group_once, group_key_make);
    if (!group_key_ok)
        return NULL;            /* no key: nothing kept, sync=1 does not synchronise the group */
    struct grouped *g = calloc(GROUP_MAX, sizeof *g);
    if (g && pthread_setspecific(group_key, g) != 0) {
        free(g);
        g = NULL;
    }
    return group_calls = g;
}

/* A call's stream must be of the communicator's device: NCCL makes that
 * device current and launches its kernel into the caller's stream with no
 * check of its own (NCCL 2.30 src/enqueue.cc: ncclEnqueueCheck's
 * cudaSetDevice(comm->cudaDev), ncclLaunchKernel's cuLaunchKernel(Ex) on
 * planner->streams->stream), which CUDA refuses for another device's
 * stream: the call (or its group's ncclGroupEnd) fails.  So the stream's
 * device is asked only when the call failed (asking it costs a driver call,
 * +400 instructions per collective on the sim): a stream_mismatch naming
 * the call. */
static void nccl_stream_check(const char *api, int device, uintptr_t stream)
{
    if (!stream || device < 0)
        return;
    int sd = dc_stream_device((CUstream)stream);
    if (sd >= 0 && sd != device)
        dc_check_libcall_stream(api, device, stream, sd);
}

/* A call inside a group: checked now; its stream and synchronisation kept
 * for the end (the first GROUP_MAX calls). */
static void nccl_check(const char *api, int device, cudaStream_t stream, const struct dc_lib_arg *a, unsigned n)
{
    if (!group_depth) {
        dc_lib_check(api, device, P(stream), a, n);
        return;
    }
    dc_check_libcall(api, device, P(stream), a, n);
    group_checked++;
    if (group_n < GROUP_MAX && (group_calls || group_alloc() != NULL)) {
        struct grouped *g = &group_calls[group_n++];
        g->api = api;
        g->device = device;
        g->stream = P(stream);
        g->n = 0;
        if (dc_opt.sync && n <= 2) {
            g->n = n;
            memcpy(g->a, a, n * sizeof *a);
        }
    }
}

LIB_BODY_VOID(ncclResult_t, ncclGroupStart)
{
    LIB_REAL(ncclGroupStart);
    if (!real)
        return dc_lib_missing("ncclGroupStart"), ncclSystemError;
    ncclResult_t r = real();
    if (r == ncclSuccess && !dc_lib_depth)
        group_depth++;
    return r;
}
LIB_ENTRIES_VOID(ncclResult_t, ncclGroupStart)

/* The outermost ncclGroupEnd: sync=1 brackets it with the group's streams
 * (dc_libcall_sync_begin before, _end after: the first asynchronous error
 * is the call's whose stream reports it; the others are freed unsynced). */
LIB_BODY_VOID(ncclResult_t, ncclGroupEnd)
{
    LIB_REAL(ncclGroupEnd);
    if (!real)
        return dc_lib_missing("ncclGroupEnd"), ncclSystemError;
    if (dc_lib_depth || !group_depth || --group_depth)
        return real();
    unsigned n = group_n, checked = group_checked;
    group_n = group_checked = 0;
    struct dc_libsync *rec[GROUP_MAX];
    unsigned nr = 0;
    if (n && dc_opt.sync && dc_enter()) {
        for (unsigned i = 0; i < n; i++) {
            struct grouped *g = &group_calls[i];
            if (!g->n)
                continue;
            struct dc_libsync *s = dc_libcall_sync_begin(g->api, g->device, g->stream, g->a, g->n);
            if (s)
                rec[nr++] = s;
        }
        dc_leave();
    }
    int active = dc_libcall_active;
    if (checked)
        dc_libcall_active = 1;
    ncclResult_t r = real();
    dc_libcall_active = active;
    if (__builtin_expect(r != ncclSuccess && r != ncclInProgress, 0) && n && dc_enter()) {
        for (unsigned i = 0; i < n; i++)        /* the group's launches failed: a stream of another device? */
            nccl_stream_check(group_calls[i].api, group_calls[i].device, group_calls[i].stream);
        dc_leave();
    }
    if (nr) {
        int g = dc_enter();
        int ok = r == ncclSuccess && g;
        for (unsigned i = 0; i < nr; i++)
            if (dc_libcall_sync_end(rec[i], ok))
                ok = 0;         /* the first failing call's only */
        if (g)
            dc_leave();
    }
    return r;
}
LIB_ENTRIES_VOID(ncclResult_t, ncclGroupEnd)

/* --- communicators ------------------------------------------------------------- */

/* A hook that runs the real call, then `after` (guard held) when it
 * succeeded outside any other library call. */
#define COMM_HOOK(name, params, args, after)                                        \
    LIB_BODY(ncclResult_t, name, params)                                            \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), ncclSystemError;                          \
        ncclResult_t r = real args;                                                 \
        if ((r == ncclSuccess || r == ncclInProgress) && !dc_lib_depth && dc_enter()) { \
            DC_UNPAREN after;                                                       \
            dc_leave();                                                             \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ncclResult_t, , name, params, args)

COMM_HOOK(ncclCommInitAll, (ncclComm_t *comm, int ndev, const int *devlist), (comm, ndev, devlist),
          (for (int i = 0; comm && i < ndev; i++) comm_record(comm[i], devlist ? devlist[i] : i, i);))
COMM_HOOK(ncclCommInitRank, (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank),
          (comm, nranks, commId, rank),
          (if (comm) comm_record(*comm, dc_current_device(), rank);))
COMM_HOOK(ncclCommInitRankConfig, (ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank, ncclConfig_t *config),
          (comm, nranks, commId, rank, config),
          (if (comm) comm_record(*comm, dc_current_device(), rank);))
/* the new communicator is on the parent's device; its rank is asked when
 * a rooted collective first needs it */
COMM_HOOK(ncclCommSplit, (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config),
          (comm, color, key, newcomm, config),
          (struct nccl_comm c;
           if (newcomm && *newcomm && dc_libd_get(DC_LIBD_NCCL_COMM, P(comm), &c, sizeof c))
               comm_record(*newcomm, c.device, -1);))

/* Destroyed or aborted: forgotten before the real call. */
#define COMM_END_HOOK(name)                                                         \
    LIB_BODY(ncclResult_t, name, (ncclComm_t comm))                                 \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), ncclSystemError;                          \
        if (comm && !dc_lib_depth && dc_enter()) {                                  \
            dc_libd_forget(DC_LIBD_NCCL_COMM, P(comm));                             \
            dc_leave();                                                             \
        }                                                                           \
        return real(comm);                                                          \
    }                                                                               \
    LIB_ENTRIES(ncclResult_t, , name, (ncclComm_t comm), (comm))
COMM_END_HOOK(ncclCommDestroy)
COMM_END_HOOK(ncclCommAbort)

/* --- the calls ------------------------------------------------------------------- */

/* An NCCL call `name` of `count` elements (0: nothing is checked); `root`
 * is the root rank of a rooted one (-1: none); is_root, in the checked
 * arguments: this rank is the root (or the rank is unknown), so a
 * root-only buffer is checked. */
#define NCCL_HOOK(name, params, args, count, root, ...)                             \
    LIB_BODY(ncclResult_t, name, params)                                            \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), ncclSystemError;                          \
        int d_ = -1, alone_ = 0;                                                    \
        if (lib_begin(lib_v)) {                                                     \
            int rank_;                                                              \
            d_ = nccl_device(comm, &rank_, (root) >= 0);                            \
            int is_root = (root) < 0 || rank_ < 0 || rank_ == (root); (void)is_root; \
            int none = (count) == 0; (void)none;                                    \
            struct dc_lib_arg a[] = { __VA_ARGS__ };                                \
            alone_ = !group_depth;                                                  \
            if (alone_)                                                             \
                LIB_COPY_IN();                                                      \
            nccl_check(#name, d_, stream, a, NARGS(a));                             \
            lib_checked();                                                          \
        }                                                                           \
        ncclResult_t r = real args;                                                 \
        if (__builtin_expect(alone_ && r != ncclSuccess && r != ncclInProgress, 0) && dc_enter()) { \
            nccl_stream_check(#name, d_, P(stream));                                \
            dc_leave();                                                             \
        }                                                                           \
        lib_end(r == ncclSuccess);                                                  \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ncclResult_t, , name, params, args)
/* a buffer the call reads or writes (when cond) */
#define BUF(name, p, cond) ARG(name, none || !(cond) ? NULL : (p))

NCCL_HOOK(ncclAllReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, comm, stream), count, -1,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, 1))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclBroadcast,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), count, root,
    BUF("sendbuff", sendbuff, is_root), BUF("recvbuff", recvbuff, 1))
NCCL_HOOK(ncclBcast,
    (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream),
    (buff, count, datatype, root, comm, stream), count, -1,
    BUF("buff", buff, 1))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, root, comm, stream), count, root,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, is_root))
NCCL_HOOK(ncclAllGather,
    (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, sendcount, datatype, comm, stream), sendcount, -1,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, 1))
NCCL_HOOK(ncclReduceScatter,
    (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, recvcount, datatype, op, comm, stream), recvcount, -1,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, 1))
NCCL_HOOK(ncclAlltoAll,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, comm, stream), count, -1,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, 1))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclGather,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), count, root,
    BUF("sendbuff", sendbuff, 1), BUF("recvbuff", recvbuff, is_root))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclScatter,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), count, root,
    BUF("sendbuff", sendbuff, is_root), BUF("recvbuff", recvbuff, 1))
NCCL_HOOK(ncclSend,
    (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (sendbuff, count, datatype, peer, comm, stream), count, -1,
    BUF("sendbuff", sendbuff, 1))
NCCL_HOOK(ncclRecv,
    (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (recvbuff, count, datatype, peer, comm, stream), count, -1,
    BUF("recvbuff", recvbuff, 1))
