/* The sim's NCCL (libnccl.so.2): several simulated GPUs of one process.
 *
 * Exports: NCCL's names without symbol versions, each API function a weak
 * ncclX with a strong pncclX alias (NCCL 2.30's NCCL_API, src/include/core.h;
 * `readelf --dyn-syms` of nvidia-nccl-cu13 2.30.7's libnccl.so.2 shows the
 * same bindings); prototypes from the toolkit's nccl.h.
 *
 * Model.  A communicator is one rank of a clique (the ranks made together
 * by ncclCommInitAll, by ncclCommInitRank with one unique id, or by one
 * ncclCommSplit color).  Each collective and each send/recv pair is a
 * rendezvous of its ranks: every rank launches ncclSimPut on its own
 * stream and device (its sendbuff copied to staging, NCCL's connection
 * buffers), and once all ranks have put, ncclSimGet on each rank's stream
 * computes that rank's recvbuff from the staging (kernels.cu).  The
 * kernels' host twins compute, so the sim's fault model decides what a
 * rank's device may touch, as for any kernel: a buffer of another device
 * faults the launch, and the fault surfaces at the next synchronizing call.
 *
 * The sim's streams complete work at submission, so a collective completes
 * when its last rank is submitted.  Grouped calls (ncclGroupStart/End) run
 * at the outermost ncclGroupEnd, as NCCL's do (src/group.cc): one thread
 * driving several GPUs puts every rank, then gets every rank.  A thread
 * whose rank waits for ranks that other threads drive waits in the call
 * until they come (a GPU's stream would wait instead), so that what the
 * thread submits next sees the result; a rank waiting for ranks this same
 * thread drives is completed when they arrive (on a GPU its kernel would
 * wait for them): an ungrouped call per rank from one thread works, as it
 * does on a GPU once connections exist.  A rank that gets nothing back (a
 * send, a non-root's Reduce or Gather) never waits.  A thread that waits
 * for ranks nobody submits waits as NCCL does, forever, saying so on
 * stderr after 10 s.
 *
 * Where each behaviour comes from is said at the function, from NCCL
 * 2.30.7's sources (github.com/NVIDIA/nccl, src/init.cc, src/collectives.cc,
 * src/enqueue.cc, src/group.cc, src/misc/argcheck.cc). */
#include "simnccl.h"
#include "simlib.h"

#include <cuda_runtime_api.h>     /* cudaStream_t, nccl.h's */
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* NCCL_API: the definition is the weak ncclX, pncclX its strong alias. */
#define NCCL_API(ret, func, ...)                                                                 \
    __attribute__((visibility("default"), alias(#func))) ret p##func(__VA_ARGS__);             \
    __attribute__((visibility("default"), weak)) ret func(__VA_ARGS__)

/* The version of torch's nvidia-nccl-cu13 wheel (2.30.7); the toolkit's
 * nccl.h, which the sim is built against, is 2.28's. */
#define SIM_NCCL_VERSION 23007

/* ------------------------------------------------------------------ */
/* The driver, as NVIDIA's libraries reach it (sim/libs/simlib.h): the
 * kernels of the library's image (coll.cu) launched with cuLaunchKernel.  */

#define LIB "libnccl.so.2"
extern const unsigned char coll_image[];
static struct simlib_image image = SIMLIB_IMAGE_INIT(coll_image, LIB);

/* Two entry points simlib's table does not have, bound the same way
 * (cuGetProcAddress_v2 of the libcuda.so.1 the process has, at the
 * version of their ABI). */
static struct {
    PFN_cuMemcpyAsync_v4000 memcpy_async;
    PFN_cuStreamIsCapturing_v10000 is_capturing;
} xdrv;
static pthread_once_t xdrv_once = PTHREAD_ONCE_INIT;

static void bind_xdrv(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL), *p = NULL;
    PFN_cuGetProcAddress_v12000 gpa = NULL;
    if (h && (p = dlsym(h, "cuGetProcAddress_v2")))
        memcpy(&gpa, &p, sizeof gpa);
    CUdriverProcAddressQueryResult q;
    if (gpa && gpa("cuMemcpyAsync", &p, 4000, CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_SUCCESS)
        memcpy(&xdrv.memcpy_async, &p, sizeof p);
    if (gpa && gpa("cuStreamIsCapturing", &p, 10000, CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_SUCCESS)
        memcpy(&xdrv.is_capturing, &p, sizeof p);
}

/* 0 when the driver is there (simlib_driver says otherwise in one line) */
static int driver(void)
{
    if (simlib_driver(LIB) != 0)
        return -1;
    pthread_once(&xdrv_once, bind_xdrv);
    return 0;
}

/* The device of the thread's current context; with `make`, device 0's
 * primary context made current when there is none (what cudaGetDevice
 * does); -1 without one. */
static int current_device(int make)
{
    if (driver() != 0)
        return -1;
    if (make)
        return simlib_current_device();
    CUcontext c = NULL;
    CUdevice d;
    if (simlib_drv.cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c || simlib_drv.cuCtxGetDevice(&d) != CUDA_SUCCESS)
        return -1;
    return (int)d;
}

/* Each device's primary context, retained once and kept (NCCL holds it
 * for its communicators' lifetime). */
static CUcontext device_ctx(int dev)
{
    static CUcontext ctx[64];
    static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
    if (dev < 0 || dev >= 64 || driver() != 0)
        return NULL;
    pthread_mutex_lock(&ctx_lock);
    if (!ctx[dev] && (simlib_drv.cuInit(0) != CUDA_SUCCESS ||
                      simlib_drv.cuDevicePrimaryCtxRetain(&ctx[dev], dev) != CUDA_SUCCESS))
        ctx[dev] = NULL;
    CUcontext c = ctx[dev];
    pthread_mutex_unlock(&ctx_lock);
    return c;
}

static const char *cu_name(CUresult r)
{
    const char *n = "CUDA_ERROR_UNKNOWN";
    if (simlib_drv.cuGetErrorName)
        simlib_drv.cuGetErrorName(r, &n);
    return n;
}

/* ------------------------------------------------------------------ */
/* Messages                                                           */

static char last_error[1024];           /* ncclGetLastError: the last WARN (src/debug.cc) */
static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;

static int debug_warn(void)
{
    static int level = -1;
    if (level < 0) {
        const char *e = getenv("NCCL_DEBUG");
        level = e && (!strcasecmp(e, "WARN") || !strcasecmp(e, "INFO") || !strcasecmp(e, "TRACE"));
    }
    return level;
}

/* NCCL's WARN: kept for ncclGetLastError, printed with NCCL_DEBUG=WARN
 * (or INFO, TRACE) as "host:pid:tid [dev] NCCL WARN message". */
__attribute__((format(printf, 1, 2))) static void warn(const char *fmt, ...)
{
    char msg[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&msg_lock);
    memcpy(last_error, msg, sizeof msg);
    pthread_mutex_unlock(&msg_lock);
    if (debug_warn()) {
        char host[64] = "";
        gethostname(host, sizeof host - 1);
        int dev = current_device(0);
        char line[1200];
        int n = snprintf(line, sizeof line, "%s:%d:%ld [%d] NCCL WARN %s\n", host, (int)getpid(),
                         (long)syscall(SYS_gettid), dev, msg);
        if (n > 0)
            (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
}

/* The sim's own lines (what the sim cannot do, where it waits): always on stderr. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n++] = '\n';
    (void)!write(2, line, (size_t)n);
}

/* ------------------------------------------------------------------ */
/* NVTX: NCCL pushes a range named after the API function in its domain
 * "NCCL" for every API call (NCCL_NVTX3_FUNC_RANGE, NVTX3_FUNC_WITH_PARAMS,
 * NVTX3_RANGE in src/include/nvtx.h), unless NCCL_NVTX_DISABLE=1.  So do
 * these: a profiler (or a test's injection library, NVTX_INJECTION64_PATH)
 * sees the same ranges, e.g. the two of a getter pair called before every
 * collective (issue 37). */

static nvtxDomainHandle_t nvtx_domain(void)
{
    static _Atomic(nvtxDomainHandle_t) dom;
    static atomic_int disabled = -1;
    if (atomic_load(&disabled) < 0) {
        const char *e = getenv("NCCL_NVTX_DISABLE");
        atomic_store(&disabled, e && atoi(e) != 0);
    }
    if (atomic_load(&disabled))
        return NULL;
    nvtxDomainHandle_t d = atomic_load(&dom);
    if (!d) {
        d = nvtxDomainCreateA("NCCL");
        nvtxDomainHandle_t expected = NULL;
        if (!atomic_compare_exchange_strong(&dom, &expected, d))
            d = expected;
    }
    return d;
}

struct nvtx_range { nvtxDomainHandle_t dom; };

static void nvtx_pop(struct nvtx_range *r)
{
    if (r->dom)
        nvtxDomainRangePop(r->dom);
}

static struct nvtx_range nvtx_push(const char *name, _Atomic(nvtxStringHandle_t) *cache)
{
    struct nvtx_range r = { nvtx_domain() };
    if (!r.dom)
        return r;
    nvtxStringHandle_t s = atomic_load(cache);
    if (!s) {
        s = nvtxDomainRegisterStringA(r.dom, name);
        atomic_store(cache, s);
    }
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = s;
    nvtxDomainRangePushEx(r.dom, &a);
    return r;
}

#define NVTX_RANGE()                                                                              \
    static _Atomic(nvtxStringHandle_t) nvtx_name_;                                                \
    __attribute__((cleanup(nvtx_pop))) struct nvtx_range nvtx_range_ = nvtx_push(__func__, &nvtx_name_); \
    (void)nvtx_range_

/* ------------------------------------------------------------------ */
/* Communicators, cliques, rendezvous                                 */

#define COMM_MAGIC 0x6c63636e4d495301ULL        /* "\1SIMnccl" */
#define COMM_DEAD  0x6c63636e44414544ULL        /* destroyed: kept, so a second destroy is refused */

struct clique {
    int nranks;
    int live;                   /* ranks not destroyed; the clique is freed at 0 */
    struct ncclComm **ranks;    /* by rank; NULL once destroyed */
};

struct user_op { int used; ncclDataType_t type; struct simnccl_op op; };

struct ncclComm {
    uint64_t magic;
    struct clique *clique;      /* NULL until the rendezvous that makes it completes */
    int rank, nranks, dev;
    int ready;
    int finalized;
    uint64_t coll_seq, split_seq;
    uint64_t *send_seq, *recv_seq;      /* per peer: the next send to / recv from it */
    pthread_t driver;           /* the thread that made it or last called a collective on it */
    ncclResult_t async_error;
    struct user_op *ops;        /* ncclRedOpCreatePreMulSum's */
    int nops;
    struct ncclComm *dead_next; /* destroyed: kept on the dead list (below) */
};
/* The destroyed communicators, kept (ncclCommDestroy below) and reachable
 * from here, so a leak checker does not report them; under `lock`. */
static struct ncclComm *dead;

enum rdv_kind { RDV_COLL, RDV_P2P, RDV_INIT, RDV_SPLIT };
enum func { F_ALLREDUCE, F_BROADCAST, F_REDUCE, F_ALLGATHER, F_REDUCESCATTER, F_ALLTOALL, F_GATHER, F_SCATTER,
            F_SENDRECV };

struct rdv;

struct part {
    struct rdv *rdv;
    int arrived, finished, deferred, delivered;
    struct ncclComm *comm;
    int dev;
    cudaStream_t stream;
    const void *sendbuff;
    void *recvbuff;
    size_t count;               /* P2P: this side's count */
    void *stage;                /* what this rank put (malloc) */
    size_t stage_bytes;
    int color, key;             /* RDV_SPLIT */
    struct ncclComm *newcomm;   /* RDV_SPLIT: allocated at the call, NULL for NCCL_SPLIT_NOCOLOR */
    struct simnccl_op op;       /* this rank's operator (a PreMulSum's scalar is its own) */
};

struct rdv {
    struct rdv *next;
    enum rdv_kind kind;
    /* what identifies it */
    struct clique *clique;
    uint64_t seq;
    int src, dst;               /* RDV_P2P */
    ncclUniqueId uid;           /* RDV_INIT */
    /* what every rank must agree on */
    enum func func;
    const char *name;
    size_t count;
    ncclDataType_t type;
    struct simnccl_op op;
    int root;
    int expected, arrived, finished;
    int complete;
    struct part *parts;         /* by rank (P2P: [0] send, [1] recv) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct rdv *rdvs;        /* open rendezvous, under lock */

static int comm_ok(const struct ncclComm *c) { return c && c->magic == COMM_MAGIC; }

/* CommCheck (src/misc/argcheck.cc): NULL, or not a live communicator. */
static ncclResult_t comm_check(const struct ncclComm *c, const char *opname)
{
    if (!c) {
        warn("%s : comm argument is NULL", opname);
        return ncclInvalidArgument;
    }
    if (c->magic == COMM_DEAD) {
        warn("comm %p has already been destroyed", (const void *)c);
        return ncclInvalidArgument;
    }
    if (c->magic != COMM_MAGIC) {
        warn("Error: corrupted comm object detected");
        return ncclInvalidArgument;
    }
    return ncclSuccess;
}

/* ncclCommEnsureReady (src/init.cc): a communicator whose creation has not
 * completed is "in progress": using it is ncclInvalidArgument. */
static ncclResult_t ensure_ready(const struct ncclComm *c)
{
    pthread_mutex_lock(&lock);
    int ready = c->ready;
    pthread_mutex_unlock(&lock);
    if (!ready) {
        warn("Attempt to use communicator before the previous operation returned ncclSuccess");
        return ncclInvalidArgument;
    }
    return ncclSuccess;
}

static struct ncclComm *comm_new(int dev)
{
    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->magic = COMM_MAGIC;
    c->dev = dev;
    c->driver = pthread_self();
    return c;
}

/* Under lock: c becomes rank `rank` of q. */
static int comm_join(struct ncclComm *c, struct clique *q, int rank)
{
    c->send_seq = calloc((size_t)q->nranks, sizeof *c->send_seq);
    c->recv_seq = calloc((size_t)q->nranks, sizeof *c->recv_seq);
    if (!c->send_seq || !c->recv_seq)
        return -1;
    c->clique = q;
    c->rank = rank;
    c->nranks = q->nranks;
    c->ready = 1;
    q->ranks[rank] = c;
    q->live++;
    return 0;
}

static struct clique *clique_new(int nranks)
{
    struct clique *q = calloc(1, sizeof *q);
    if (q && !(q->ranks = calloc((size_t)nranks, sizeof *q->ranks))) {
        free(q);
        return NULL;
    }
    if (q)
        q->nranks = nranks;
    return q;
}

static void rdv_free(struct rdv *r)
{
    for (struct rdv **p = &rdvs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    for (int i = 0; i < r->expected; i++)
        free(r->parts[i].stage);
    free(r->parts);
    free(r);
}

static struct rdv *rdv_new(enum rdv_kind kind, int expected)
{
    struct rdv *r = calloc(1, sizeof *r);
    if (!r || !(r->parts = calloc((size_t)expected, sizeof *r->parts))) {
        free(r);
        return NULL;
    }
    r->kind = kind;
    r->expected = expected;
    for (int i = 0; i < expected; i++)
        r->parts[i].rdv = r;
    r->next = rdvs;
    rdvs = r;
    return r;
}

/* ------------------------------------------------------------------ */
/* The twins: what ncclSimPut, ncclSimGet and ncclSimOneRank compute.  A
 * twin runs inside the launch, on the launching thread (the sim's streams
 * complete at submission); it must not call CUDA.  `work` is the rank's
 * part: its rendezvous is complete and does not change while gets run. */

#define EXPORT SIMLIB_EXPORT
EXPORT void simcuda_twin_ncclSimPut(void **args, const unsigned grid[3], const unsigned block[3]);
EXPORT void simcuda_twin_ncclSimGet(void **args, const unsigned grid[3], const unsigned block[3]);
EXPORT void simcuda_twin_ncclSimOneRank(void **args, const unsigned grid[3], const unsigned block[3]);

struct sim_work { void *work; };        /* coll.cu's SimWork */

/* A PreMulSum multiplies each rank's input by that rank's scalar "locally
 * before reducing them with peer values via summation" (nccl.h,
 * ncclRedOpCreatePreMulSum): here, on the way into staging. */
void simcuda_twin_ncclSimPut(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    const struct sim_work *w = args[2];
    struct part *p = w->work;
    const void *src = *(const void **)args[0];
    size_t nbytes = *(size_t *)args[1];
    if (p->op.kind != SIMNCCL_PREMULSUM) {
        memcpy(p->stage, src, nbytes);
        return;
    }
    struct simnccl_op op = p->op;
    ncclDataType_t t = p->rdv->type;
    if (op.scalar_ptr)
        memcpy(&op.scalar, op.scalar_ptr, simnccl_type_size(t));      /* ncclScalarDevice: read on the device */
    simnccl_reduce(p->stage, &src, 1, nbytes / simnccl_type_size(t), t, &op);
}

void simcuda_twin_ncclSimGet(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    const struct sim_work *w = args[2];
    struct part *me = w->work;
    struct rdv *r = me->rdv;
    char *dst = *(void **)args[0];
    size_t sz = simnccl_type_size(r->type), n = r->count, blk = n * sz;
    int nr = r->expected, rank = (int)(me - r->parts);
    struct simnccl_op op = r->op;
    if (op.kind == SIMNCCL_PREMULSUM)
        op.kind = SIMNCCL_SUM;                          /* multiplied at the put */
    const void *src[nr > 0 ? nr : 1];
    switch (r->func) {
    case F_ALLREDUCE:
    case F_REDUCE:
        for (int k = 0; k < nr; k++)
            src[k] = r->parts[k].stage;
        simnccl_reduce(dst, src, nr, n, r->type, &op);
        break;
    case F_REDUCESCATTER:
        for (int k = 0; k < nr; k++)
            src[k] = (const char *)r->parts[k].stage + (size_t)rank * blk;
        simnccl_reduce(dst, src, nr, n, r->type, &op);
        break;
    case F_BROADCAST:
        memcpy(dst, r->parts[r->root].stage, blk);
        break;
    case F_ALLGATHER:
    case F_GATHER:
        for (int k = 0; k < nr; k++)
            memcpy(dst + (size_t)k * blk, r->parts[k].stage, blk);
        break;
    case F_ALLTOALL:
        for (int k = 0; k < nr; k++)
            memcpy(dst + (size_t)k * blk, (const char *)r->parts[k].stage + (size_t)rank * blk, blk);
        break;
    case F_SCATTER:
        memcpy(dst, (const char *)r->parts[r->root].stage + (size_t)rank * blk, blk);
        break;
    case F_SENDRECV: {      /* NCCL requires equal counts; the sim copies what both have */
        size_t nb = *(size_t *)args[1];
        if (r->parts[0].stage)
            memcpy(dst, r->parts[0].stage, nb < r->parts[0].stage_bytes ? nb : r->parts[0].stage_bytes);
        break;
    }
    }
}

/* oneRankReduce (src/device/onerank.cu): recvbuff = sendbuff times the
 * PreMulSum scalar. */
struct onerank { size_t count; ncclDataType_t type; struct simnccl_op op; };

void simcuda_twin_ncclSimOneRank(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid, (void)block;
    const struct sim_work *w = args[3];
    const struct onerank *o = w->work;
    struct simnccl_op op = o->op;
    if (op.scalar_ptr)
        memcpy(&op.scalar, op.scalar_ptr, simnccl_type_size(o->type));
    const void *src[1] = { *(const void **)args[1] };
    simnccl_reduce(*(void **)args[0], src, 1, o->count, o->type, &op);
}

/* ------------------------------------------------------------------ */
/* Launching on a rank's device and stream                            */

/* Runs a launch or a copy with device dev's context current: NCCL sets the
 * communicator's device around its launches and restores the caller's
 * (src/group.cc: cudaSetDevice(comm->cudaDev); ncclGroupEnd keeps savedDev).
 * A stream of another device fails as it does there: the runtime NCCL
 * launches with refuses a stream of another device than the current one
 * (CUDA_ERROR_INVALID_HANDLE, "invalid resource handle"). */
struct launch { const char *kernel; void **params; size_t nbytes; const void *copy_src; void *copy_dst; };

static ncclResult_t on_device(int dev, cudaStream_t stream, const struct launch *l, const char *name)
{
    CUcontext ctx = device_ctx(dev), old = NULL, sctx = NULL;
    CUresult r = ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    int special = (uintptr_t)stream <= 2;       /* NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD */
    if (r == CUDA_SUCCESS && !special && (r = simlib_drv.cuStreamGetCtx(stream, &sctx)) == CUDA_SUCCESS &&
        sctx != ctx)
        r = CUDA_ERROR_INVALID_HANDLE;
    if (r == CUDA_SUCCESS)
        r = simlib_drv.cuCtxGetCurrent(&old);
    if (r == CUDA_SUCCESS && old != ctx)
        r = simlib_drv.cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) {
        if (l->kernel)
            r = simlib_launch(&image, l->kernel, l->nbytes, stream, l->params);
        else if (!xdrv.memcpy_async)
            r = CUDA_ERROR_NOT_FOUND;
        else
            r = xdrv.memcpy_async((CUdeviceptr)(uintptr_t)l->copy_dst, (CUdeviceptr)(uintptr_t)l->copy_src,
                                  l->nbytes, stream);
        if (old != ctx)
            simlib_drv.cuCtxSetCurrent(old);
    }
    if (r != CUDA_SUCCESS) {
        warn("%s: Cuda failure %d '%s'", name, (int)r, cu_name(r));
        return ncclUnhandledCudaError;
    }
    return ncclSuccess;
}

static ncclResult_t launch_put(struct part *p, const void *sendbuff, size_t nbytes, cudaStream_t s, const char *name)
{
    struct sim_work w = { p };
    void *params[] = { &sendbuff, &nbytes, &w };
    struct launch l = { "ncclSimPut", params, nbytes, NULL, NULL };
    return on_device(p->dev, s, &l, name);
}

static ncclResult_t launch_get(struct part *p, void *recvbuff, size_t nbytes, cudaStream_t s, const char *name)
{
    struct sim_work w = { p };
    void *params[] = { &recvbuff, &nbytes, &w };
    struct launch l = { "ncclSimGet", params, nbytes, NULL, NULL };
    return on_device(p->dev, s, &l, name);
}

/* ------------------------------------------------------------------ */
/* Tasks: a thread's calls between ncclGroupStart and ncclGroupEnd      */

struct task {
    struct task *next;
    enum rdv_kind kind;
    struct ncclComm *comm;
    enum func func;
    const char *name;
    const void *sendbuff;
    void *recvbuff;
    size_t count;
    ncclDataType_t type;
    struct simnccl_op op;
    int root, peer, is_send;
    cudaStream_t stream;
    ncclUniqueId uid;           /* RDV_INIT */
    int color, key;             /* RDV_SPLIT */
    struct ncclComm *newcomm;   /* RDV_SPLIT: NULL for NCCL_SPLIT_NOCOLOR */
    struct part *part;          /* where it arrived */
};

/* src/group.cc: ncclGroupDepth, ncclGroupError, the thread's queued work */
static __thread int group_depth;
static __thread ncclResult_t group_error;
static __thread struct task *group_head, *group_tail;

/* ncclGroupErrCheck (src/include/group.h): an error inside a group makes
 * its ncclGroupEnd fail too. */
static ncclResult_t group_err(ncclResult_t r)
{
    if (group_depth > 0 && r != ncclSuccess && r != ncclInProgress)
        group_error = r;
    return r;
}

/* The rendezvous a task belongs to (under lock), made on first arrival;
 * NULL with *err set when the ranks disagree or memory is short. */
static struct rdv *find_rdv(struct task *t, ncclResult_t *err)
{
    struct ncclComm *c = t->comm;
    *err = ncclSuccess;
    for (struct rdv *r = rdvs; r; r = r->next) {
        if (r->kind != t->kind)
            continue;
        switch (t->kind) {
        case RDV_COLL:
            if (r->clique != c->clique || r->seq != c->coll_seq)
                continue;
            /* NCCL requires every rank to make the same calls in the same
             * order (count, type, op, root alike); a mismatch hangs or
             * corrupts on a GPU.  The sim says so and refuses the call. */
            if (r->func != t->func || r->count != t->count || r->type != t->type || r->root != t->root ||
                r->op.kind != t->op.kind) {
                say("simnccl: %s on rank %d (count %zu, type %d, root %d) does not match rank(s) that called "
                    "%s (count %zu, type %d, root %d) as the communicator's collective #%llu: NCCL requires "
                    "every rank to make the same calls in the same order",
                    t->name, c->rank, t->count, (int)t->type, t->root, r->name, r->count, (int)r->type, r->root,
                    (unsigned long long)r->seq);
                *err = ncclInvalidUsage;
                return NULL;
            }
            return r;
        case RDV_P2P: {
            int src = t->is_send ? c->rank : t->peer, dst = t->is_send ? t->peer : c->rank;
            uint64_t seq = t->is_send ? c->send_seq[t->peer] : c->recv_seq[t->peer];
            if (r->clique != c->clique || r->src != src || r->dst != dst || r->seq != seq)
                continue;
            return r;
        }
        case RDV_INIT:
            if (memcmp(&r->uid, &t->uid, sizeof t->uid) || r->complete)
                continue;
            if ((size_t)r->expected != t->count) {
                warn("ncclCommInitRank: rank %d of %zu: other ranks of this unique id said %d ranks", t->root,
                     t->count, r->expected);
                *err = ncclInvalidArgument;
                return NULL;
            }
            return r;
        case RDV_SPLIT:
            if (r->clique != c->clique || r->seq != c->split_seq)
                continue;
            return r;
        }
    }
    int expected = t->kind == RDV_P2P ? 2 : t->kind == RDV_INIT ? (int)t->count : c->nranks;
    struct rdv *r = rdv_new(t->kind, expected);
    if (!r) {
        *err = ncclSystemError;
        return NULL;
    }
    r->func = t->func;
    r->name = t->name;
    r->count = t->count;
    r->type = t->type;
    r->op = t->op;
    r->root = t->root;
    if (t->kind == RDV_INIT) {
        r->uid = t->uid;
    } else {
        r->clique = c->clique;
        if (t->kind == RDV_COLL)
            r->seq = c->coll_seq;
        else if (t->kind == RDV_SPLIT)
            r->seq = c->split_seq;
        else {
            r->src = t->is_send ? c->rank : t->peer;
            r->dst = t->is_send ? t->peer : c->rank;
            r->seq = t->is_send ? c->send_seq[t->peer] : c->recv_seq[t->peer];
        }
    }
    return r;
}

/* What rank `rank` of a collective puts (bytes of its sendbuff) and gets
 * (bytes of its recvbuff): NCCL's buffer sizes (nccl.h). */
static void coll_sizes(const struct rdv *r, int rank, size_t *put, size_t *get)
{
    size_t blk = r->count * simnccl_type_size(r->type);
    int nr = r->expected, root = rank == r->root;
    switch (r->func) {
    case F_ALLREDUCE: *put = blk; *get = blk; break;
    case F_BROADCAST: *put = root ? blk : 0; *get = blk; break;        /* sendbuff read on the root only */
    case F_REDUCE: *put = blk; *get = root ? blk : 0; break;           /* recvbuff written on the root only */
    case F_ALLGATHER: *put = blk; *get = blk * (size_t)nr; break;
    case F_REDUCESCATTER: *put = blk * (size_t)nr; *get = blk; break;
    case F_ALLTOALL: *put = blk * (size_t)nr; *get = blk * (size_t)nr; break;
    case F_GATHER: *put = blk; *get = root ? blk * (size_t)nr : 0; break;
    case F_SCATTER: *put = root ? blk * (size_t)nr : 0; *get = blk; break;
    default: *put = *get = 0; break;
    }
}

/* Under lock: the split's new cliques, one per color, ranks ordered by key
 * then by the parent's rank (ncclCommSplit, nccl.h). */
static void split_complete(struct rdv *r)
{
    for (int i = 0; i < r->expected; i++) {
        struct part *p = &r->parts[i];
        if (!p->newcomm || p->newcomm->clique)
            continue;
        int n = 0;
        for (int j = 0; j < r->expected; j++)
            n += r->parts[j].newcomm && r->parts[j].color == p->color;
        struct clique *q = clique_new(n);
        if (!q)
            continue;
        for (int j = 0; j < r->expected; j++) {
            struct part *o = &r->parts[j];
            if (!o->newcomm || o->color != p->color)
                continue;
            int rank = 0;
            for (int k = 0; k < r->expected; k++) {
                struct part *x = &r->parts[k];
                if (x->newcomm && x->color == p->color && (x->key < o->key || (x->key == o->key && k < j)))
                    rank++;
            }
            o->newcomm->dev = o->comm->dev;
            o->newcomm->driver = o->comm->driver;
            comm_join(o->newcomm, q, rank);
        }
    }
}

static void init_complete(struct rdv *r)
{
    struct clique *q = clique_new(r->expected);
    if (!q)
        return;
    for (int i = 0; i < r->expected; i++)
        comm_join(r->parts[i].comm, q, i);
}

/* Phase 1 of a group: the task's rank arrives, with what it puts. */
static ncclResult_t arrive(struct task *t)
{
    ncclResult_t err;
    pthread_mutex_lock(&lock);
    struct rdv *r = find_rdv(t, &err);
    if (!r) {
        pthread_mutex_unlock(&lock);
        return err;
    }
    int idx = t->kind == RDV_P2P ? !t->is_send : t->kind == RDV_INIT ? t->root : t->comm->rank;
    struct part *p = &r->parts[idx];
    if (p->arrived || p->comm) {
        pthread_mutex_unlock(&lock);
        if (t->kind == RDV_INIT)
            warn("ncclCommInitRank: rank %d joined twice", idx);
        return t->kind == RDV_INIT ? ncclInvalidUsage : ncclInternalError;
    }
    p->comm = t->comm;
    p->dev = t->comm->dev;
    p->stream = t->stream;
    p->sendbuff = t->sendbuff;
    p->recvbuff = t->recvbuff;
    p->count = t->count;
    p->color = t->color;
    p->key = t->key;
    p->newcomm = t->newcomm;
    p->op = t->op;
    t->part = p;
    if (t->kind == RDV_COLL)
        t->comm->coll_seq++;
    else if (t->kind == RDV_SPLIT)
        t->comm->split_seq++;
    else if (t->kind == RDV_P2P)
        (t->is_send ? t->comm->send_seq : t->comm->recv_seq)[t->peer]++;
    if (t->kind != RDV_INIT)
        t->comm->driver = pthread_self();
    size_t put = 0, get = 0;
    if (t->kind == RDV_COLL)
        coll_sizes(r, idx, &put, &get);
    else if (t->kind == RDV_P2P && t->is_send)
        put = t->count * simnccl_type_size(t->type);
    pthread_mutex_unlock(&lock);

    ncclResult_t ret = ncclSuccess;
    if (put) {
        /* calloc: a put that faults leaves zeros, as good as a GPU's garbage */
        p->stage = calloc(1, put);
        p->stage_bytes = put;
        if (!p->stage)
            ret = ncclSystemError;
        else
            ret = launch_put(p, t->sendbuff, put, t->stream, t->name);
    }
    /* the rank arrives even when its launch failed, so that its peers do not wait forever */
    pthread_mutex_lock(&lock);
    p->arrived = 1;
    if (++r->arrived == r->expected) {
        r->complete = 1;
        if (r->kind == RDV_INIT)
            init_complete(r);
        else if (r->kind == RDV_SPLIT)
            split_complete(r);
        pthread_cond_broadcast(&cond);
    }
    pthread_mutex_unlock(&lock);
    return ret;
}

/* Under lock: whether the incomplete rendezvous waits for a rank that this
 * thread drives (or that is gone): then waiting here would never end. */
static int waits_for_self(const struct rdv *r)
{
    for (int i = 0; i < r->expected; i++) {
        if (r->parts[i].arrived)
            continue;
        const struct ncclComm *c = NULL;
        if (r->kind == RDV_P2P)
            c = r->clique->ranks[i == 0 ? r->src : r->dst];
        else if (r->kind != RDV_INIT)
            c = r->clique->ranks[i];
        else
            continue;               /* not created yet: another thread's */
        if (!c || pthread_equal(c->driver, pthread_self()))
            return 1;
    }
    return 0;
}

static size_t get_bytes(const struct part *p)
{
    const struct rdv *r = p->rdv;
    size_t put, get = 0;
    if (r->kind == RDV_COLL)
        coll_sizes(r, (int)(p - r->parts), &put, &get);
    else if (r->kind == RDV_P2P && p == &r->parts[1])
        get = p->count * simnccl_type_size(r->type);
    return get;
}

/* Under lock: a part is finished; the rendezvous goes once all are. */
static void part_finished(struct part *p)
{
    struct rdv *r = p->rdv;
    p->finished = 1;
    if (++r->finished == r->expected)
        rdv_free(r);
}

/* Phase 2 of a group: the task's rank gets its result once every rank has
 * arrived; with it, the parts other threads left to the one that completes
 * the rendezvous (deferred). */
static ncclResult_t finish(struct task *t)
{
    struct part *p = t->part;
    if (!p)
        return ncclSuccess;
    struct rdv *r = p->rdv;
    pthread_mutex_lock(&lock);
    if (!r->complete && !get_bytes(p) && r->kind != RDV_INIT && r->kind != RDV_SPLIT) {
        /* nothing comes back to this rank (a send, a non-root's reduce or
         * gather): it does not wait, as a GPU's stream would not hold its
         * thread; the rendezvous keeps its staging */
        part_finished(p);
        pthread_mutex_unlock(&lock);
        return ncclSuccess;
    }
    int warned = 0;
    while (!r->complete) {
        if (waits_for_self(r)) {
            if (r->kind == RDV_SPLIT && !warned)
                say("simnccl: %s: rank %d waits for ranks this thread drives: NCCL blocks here (one thread "
                    "driving several ranks must group the calls, ncclGroupStart/End); the sim completes the "
                    "split when they call it", t->name, t->comm->rank);
            p->deferred = 1;
            pthread_mutex_unlock(&lock);
            return ncclSuccess;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 10;
        if (pthread_cond_timedwait(&cond, &lock, &ts) != 0 && !r->complete && !warned) {
            warned = 1;
            say("simnccl: %s: rank %d has waited 10 s for the other ranks (%d of %d arrived); NCCL waits as "
                "long as it takes", t->name, r->kind == RDV_INIT ? t->root : t->comm->rank, r->arrived,
                r->expected);
        }
    }
    /* the parts to deliver now: ours, and those left to whoever completes it */
    struct part *todo[r->expected];
    int n = 0;
    for (int i = 0; i < r->expected; i++) {
        struct part *q = &r->parts[i];
        if (!q->delivered && !q->finished && (q == p || q->deferred)) {
            q->delivered = 1;
            todo[n++] = q;
        }
    }
    pthread_mutex_unlock(&lock);
    ncclResult_t ret = ncclSuccess;
    for (int i = 0; i < n; i++) {
        struct part *q = todo[i];
        size_t get = get_bytes(q);
        if (get) {
            ncclResult_t e = launch_get(q, q->recvbuff, get, q->stream, r->name);
            if (e != ncclSuccess) {
                if (q == p)
                    ret = e;
                else {                                  /* the deferred rank's: ncclCommGetAsyncError */
                    pthread_mutex_lock(&lock);
                    if (comm_ok(q->comm))
                        q->comm->async_error = e;
                    pthread_mutex_unlock(&lock);
                }
            }
        }
    }
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n; i++)
        part_finished(todo[i]);
    pthread_mutex_unlock(&lock);
    return ret;
}

/* The outermost ncclGroupEnd (src/group.cc groupLaunch): every task puts,
 * then every task gets; the caller's device is kept. */
static ncclResult_t group_run(struct task *list)
{
    ncclResult_t ret = ncclSuccess, e;
    for (struct task *t = list; t; t = t->next)
        if ((e = arrive(t)) != ncclSuccess && ret == ncclSuccess)
            ret = e;
    for (struct task *t = list; t; t = t->next)
        if ((e = finish(t)) != ncclSuccess && ret == ncclSuccess)
            ret = e;
    while (list) {
        struct task *n = list->next;
        free(list);
        list = n;
    }
    return ret;
}

static ncclResult_t group_end_internal(void)
{
    if (group_depth == 0) {
        warn("ncclGroupEnd: not in a group call.");
        return ncclInvalidUsage;
    }
    if (--group_depth > 0)
        return ncclSuccess;
    struct task *list = group_head;
    ncclResult_t err = group_error;
    group_head = group_tail = NULL;
    group_error = ncclSuccess;
    if (err != ncclSuccess) {           /* the group fails as a whole; nothing runs (groupCleanup) */
        while (list) {
            struct task *n = list->next;
            free(list);
            list = n;
        }
        return err;
    }
    return group_run(list);
}

/* ncclGroupStartInternal / taskAppend / ncclGroupEndInternal: the call is a
 * group of one unless the thread is inside a group. */
static ncclResult_t enqueue(const struct task *t)
{
    struct task *n = malloc(sizeof *n);
    if (!n)
        return group_err(ncclSystemError);
    *n = *t;
    n->next = NULL;
    group_depth++;
    if (group_tail)
        group_tail->next = n;
    else
        group_head = n;
    group_tail = n;
    return group_end_internal();
}

/* ------------------------------------------------------------------ */
/* Collectives: ncclEnqueueCheck (src/enqueue.cc)                      */

static ncclResult_t red_op(struct simnccl_op *out, struct ncclComm *c, ncclRedOp_t op, ncclDataType_t type,
                           const char *name)
{
    memset(out, 0, sizeof *out);
    out->nranks = c->nranks;
    switch ((int)op) {
    case ncclSum: out->kind = SIMNCCL_SUM; return ncclSuccess;
    case ncclProd: out->kind = SIMNCCL_PROD; return ncclSuccess;
    case ncclMin: out->kind = SIMNCCL_MIN; return ncclSuccess;
    case ncclMax: out->kind = SIMNCCL_MAX; return ncclSuccess;
    case ncclAvg: simnccl_avg_op(out, type, c->nranks); return ncclSuccess;
    }
    int ix = (int)op - (int)ncclNumOps;
    if ((int)op < 0 || ix >= c->nops || !c->ops[ix].used) {
        warn("%s : reduction operation %d unknown to this communicator", name, (int)op);
        return ncclInvalidArgument;
    }
    if (c->ops[ix].type != type) {
        warn("Data type supplied to user-created ncclRedOp_t does not match type given to reduction operation");
        return ncclInvalidArgument;
    }
    *out = c->ops[ix].op;
    out->nranks = c->nranks;
    return ncclSuccess;
}

/* One-rank communicators (taskAppend -> ncclLaunchOneRank,
 * src/device/onerank.cu): a cudaMemcpyAsync (cudaMemcpyDefault) when
 * recvbuff differs from sendbuff, except that a PreMulSum (ncclAvg on
 * floating point, a user's PreMulSum) runs oneRankReduce, which reads
 * sendbuff on the device. */
static ncclResult_t one_rank(struct task *t)
{
    size_t nbytes = t->count * simnccl_type_size(t->type);
    struct launch l = { NULL, NULL, nbytes, t->sendbuff, t->recvbuff };
    if (t->op.kind != SIMNCCL_PREMULSUM)
        return t->recvbuff == t->sendbuff ? ncclSuccess : on_device(t->comm->dev, t->stream, &l, t->name);
    struct onerank o = { t->count, t->type, t->op };
    struct sim_work w = { &o };
    void *params[] = { &t->recvbuff, &t->sendbuff, &nbytes, &w };
    l.kernel = "ncclSimOneRank";
    l.params = params;
    return on_device(t->comm->dev, t->stream, &l, t->name);
}

/* A stream being captured: the sim's collectives run at submission, which
 * a graph cannot replay. */
static ncclResult_t not_captured(cudaStream_t s, const char *name)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    if (driver() == 0 && xdrv.is_capturing && xdrv.is_capturing(s, &st) == CUDA_SUCCESS &&
        st != CU_STREAM_CAPTURE_STATUS_NONE) {
        say("simnccl: %s into a stream being captured: the sim's NCCL cannot put collectives into CUDA graphs: "
            "ncclInvalidUsage", name);
        return ncclInvalidUsage;
    }
    return ncclSuccess;
}

static ncclResult_t collective(struct task *t, ncclRedOp_t op)
{
    ncclResult_t r = comm_check(t->comm, t->name);
    if (r != ncclSuccess)
        return group_err(r);
    if ((r = ensure_ready(t->comm)) != ncclSuccess)
        return group_err(r);
    /* ArgsCheck (src/misc/argcheck.cc) */
    if (t->root < 0 || t->root >= t->comm->nranks) {
        warn("%s : invalid root %d (root should be in the 0..%d range)", t->name, t->root, t->comm->nranks);
        return group_err(ncclInvalidArgument);
    }
    if ((int)t->type < 0 || t->type >= ncclNumTypes) {
        warn("%s : invalid type %d", t->name, (int)t->type);
        return group_err(ncclInvalidArgument);
    }
    if ((r = red_op(&t->op, t->comm, op, t->type, t->name)) != ncclSuccess)
        return group_err(r);
    if ((r = not_captured(t->stream, t->name)) != ncclSuccess)
        return group_err(r);
    t->kind = RDV_COLL;
    if (t->func == F_SENDRECV) {
        t->kind = RDV_P2P;
        if (t->peer < 0 || t->peer >= t->comm->nranks) {
            warn("%s : invalid peer %d (peer should be in the 0..%d range)", t->name, t->peer, t->comm->nranks);
            return group_err(ncclInvalidArgument);
        }
    } else {
        if (t->count == 0)              /* "Empty collectives can be discarded." (taskAppend) */
            return ncclSuccess;
        if (t->comm->nranks == 1)       /* launched at the call, even inside a group (taskAppend) */
            return group_err(one_rank(t));
    }
    return enqueue(t);
}

#define COLL_TASK(fn, nm, sb, rb, cnt, dt, rt, cm, st) \
    struct task t = { .func = (fn), .name = (nm), .sendbuff = (sb), .recvbuff = (rb), .count = (cnt), \
                      .type = (dt), .root = (rt), .comm = (cm), .stream = (st) }

NCCL_API(ncclResult_t, ncclAllReduce, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_ALLREDUCE, "AllReduce", sendbuff, recvbuff, count, datatype, 0, comm, stream);
    return collective(&t, op);
}

NCCL_API(ncclResult_t, ncclBroadcast, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_BROADCAST, "Broadcast", sendbuff, recvbuff, count, datatype, root, comm, stream);
    return collective(&t, ncclSum);
}

/* ncclBcast: ncclBroadcast in place (src/collectives.cc) */
NCCL_API(ncclResult_t, ncclBcast, void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
         cudaStream_t stream)
{
    return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

NCCL_API(ncclResult_t, ncclReduce, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_REDUCE, "Reduce", sendbuff, recvbuff, count, datatype, root, comm, stream);
    return collective(&t, op);
}

NCCL_API(ncclResult_t, ncclAllGather, const void *sendbuff, void *recvbuff, size_t sendcount,
         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_ALLGATHER, "AllGather", sendbuff, recvbuff, sendcount, datatype, 0, comm, stream);
    return collective(&t, ncclSum);
}

NCCL_API(ncclResult_t, ncclReduceScatter, const void *sendbuff, void *recvbuff, size_t recvcount,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_REDUCESCATTER, "ReduceScatter", sendbuff, recvbuff, recvcount, datatype, 0, comm, stream);
    return collective(&t, op);
}

NCCL_API(ncclResult_t, ncclAlltoAll, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_ALLTOALL, "AlltoAll", sendbuff, recvbuff, count, datatype, 0, comm, stream);
    return collective(&t, ncclSum);
}

NCCL_API(ncclResult_t, ncclGather, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_GATHER, "Gather", sendbuff, recvbuff, count, datatype, root, comm, stream);
    return collective(&t, ncclSum);
}

NCCL_API(ncclResult_t, ncclScatter, const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
         int root, ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_SCATTER, "Scatter", sendbuff, recvbuff, count, datatype, root, comm, stream);
    return collective(&t, ncclSum);
}

/* Send/Recv: the k-th send from a to b meets the k-th recv of b from a. */
NCCL_API(ncclResult_t, ncclSend, const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
         ncclComm_t comm, cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_SENDRECV, "Send", sendbuff, NULL, count, datatype, 0, comm, stream);
    t.peer = peer;
    t.is_send = 1;
    return collective(&t, ncclSum);
}

NCCL_API(ncclResult_t, ncclRecv, void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
         cudaStream_t stream)
{
    NVTX_RANGE();
    COLL_TASK(F_SENDRECV, "Recv", NULL, recvbuff, count, datatype, 0, comm, stream);
    t.peer = peer;
    return collective(&t, ncclSum);
}

NCCL_API(ncclResult_t, ncclGroupStart, void)
{
    NVTX_RANGE();
    group_depth++;
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclGroupEnd, void)
{
    NVTX_RANGE();
    return group_end_internal();
}

/* ------------------------------------------------------------------ */
/* Creation and destruction                                           */

NCCL_API(ncclResult_t, ncclGetVersion, int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = SIM_NCCL_VERSION;
    return ncclSuccess;
}

/* A unique id names this process and a counter (NCCL's holds the bootstrap
 * root's address); ranks that join with the same id form one clique. */
#define UID_MAGIC "simnccl"
struct uid { char magic[8]; int pid; unsigned long long n; };

NCCL_API(ncclResult_t, ncclGetUniqueId, ncclUniqueId *uniqueId)
{
    static atomic_ullong counter;
    if (!uniqueId) {
        warn("GetUniqueId : out argument is NULL");
        return ncclInvalidArgument;
    }
    struct uid u = { UID_MAGIC, (int)getpid(), atomic_fetch_add(&counter, 1) + 1 };
    memset(uniqueId, 0, sizeof *uniqueId);
    memcpy(uniqueId->internal, &u, sizeof u);
    return ncclSuccess;
}

static ncclResult_t init_rank(ncclComm_t *newcomm, int nranks, const ncclUniqueId *id, int rank, const char *name)
{
    struct uid u;
    memcpy(&u, id->internal, sizeof u);
    if (!memcmp(u.magic, UID_MAGIC, sizeof u.magic) && u.pid != (int)getpid()) {
        say("simnccl: %s: the unique id comes from process %d; the sim's NCCL joins the ranks of one process "
            "only: ncclInvalidUsage", name, u.pid);
        return ncclInvalidUsage;
    }
    if (!newcomm) {
        warn("%s : newcomm argument is NULL", name);
        return ncclInvalidArgument;
    }
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        warn("Invalid rank requested : %d/%d", rank, nranks);
        return ncclInvalidArgument;
    }
    int dev = current_device(1);
    if (dev < 0)
        return ncclUnhandledCudaError;
    struct ncclComm *c = comm_new(dev);
    if (!c)
        return ncclSystemError;
    *newcomm = c;
    /* the comm exists at once; it joins at the (outermost) ncclGroupEnd
     * (ncclCommInitRankDev + ncclAsyncLaunch) */
    struct task t = { .kind = RDV_INIT, .name = name, .comm = c, .count = (size_t)nranks, .root = rank,
                      .uid = *id };
    return enqueue(&t);
}

NCCL_API(ncclResult_t, ncclCommInitRank, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    NVTX_RANGE();
    return group_err(init_rank(comm, nranks, &commId, rank, "ncclCommInitRank"));
}

/* config: blocking or not, the sim's creation completes in the call or at
 * the group's end alike, and never answers ncclInProgress */
NCCL_API(ncclResult_t, ncclCommInitRankConfig, ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
         ncclConfig_t *config)
{
    NVTX_RANGE();
    (void)config;
    return group_err(init_rank(comm, nranks, &commId, rank, "ncclCommInitRankConfig"));
}

/* nId ids name the same root set; the first one names the clique */
NCCL_API(ncclResult_t, ncclCommInitRankScalable, ncclComm_t *newcomm, int nranks, int myrank, int nId,
         ncclUniqueId *commIds, ncclConfig_t *config)
{
    NVTX_RANGE();
    (void)config;
    if (nId < 1 || !commIds) {
        warn("ncclCommInitRankScalable : invalid number of ids %d", nId);
        return group_err(ncclInvalidArgument);
    }
    return group_err(init_rank(newcomm, nranks, &commIds[0], myrank, "ncclCommInitRankScalable"));
}

/* ncclCommInitAll (src/init.cc): devices checked against the device count,
 * one rank per device of devlist (0..ndev-1 without one), the caller's
 * device kept. */
NCCL_API(ncclResult_t, ncclCommInitAll, ncclComm_t *comms, int ndev, const int *devlist)
{
    NVTX_RANGE();
    if (!comms) {
        warn("CommInitAll : comms argument is NULL");
        return ncclInvalidArgument;
    }
    if (ndev < 0) {
        warn("Invalid device count requested : %d", ndev);
        return ncclInvalidArgument;
    }
    int total = 0;
    if (current_device(1) < 0 || simlib_drv.cuDeviceGetCount(&total) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    for (int i = 0; devlist && i < ndev; i++) {
        if (devlist[i] < 0 || devlist[i] >= total) {
            warn("Invalid device %d (totalnDev=%d)", devlist[i], total);
            return ncclInvalidArgument;
        }
        for (int j = 0; j < i; j++)
            if (devlist[j] == devlist[i])
                return ncclInvalidUsage;        /* duplicate device (NCCL_MULTI_RANK_GPU_ENABLE unset) */
    }
    if (ndev == 0)
        return ncclSuccess;
    struct clique *q = clique_new(ndev);
    if (!q)
        return ncclSystemError;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ndev; i++) {
        struct ncclComm *c = comm_new(devlist ? devlist[i] : i);
        if (!c || comm_join(c, q, i) != 0) {
            pthread_mutex_unlock(&lock);
            return ncclSystemError;
        }
        comms[i] = c;
    }
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

/* ncclCommSplit: collective over the parent's ranks; NCCL_SPLIT_NOCOLOR
 * gives NULL at once; the others' communicators exist from the call and
 * are ready when every rank of the parent has called it. */
NCCL_API(ncclResult_t, ncclCommSplit, ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
         ncclConfig_t *config)
{
    NVTX_RANGE();
    (void)config;
    ncclResult_t r = comm_check(comm, "CommSplit");
    if (r != ncclSuccess)
        return group_err(r);
    if ((r = ensure_ready(comm)) != ncclSuccess)
        return group_err(r);
    if (!newcomm) {
        warn("CommSplit : newcomm argument is NULL");
        return group_err(ncclInvalidArgument);
    }
    if (color < NCCL_SPLIT_NOCOLOR) {
        warn("CommSplit : invalid color %d", color);
        return group_err(ncclInvalidArgument);
    }
    struct ncclComm *c = NULL;
    if (color != NCCL_SPLIT_NOCOLOR && !(c = comm_new(comm->dev)))
        return group_err(ncclSystemError);
    *newcomm = c;
    struct task t = { .kind = RDV_SPLIT, .name = "ncclCommSplit", .comm = comm, .color = color, .key = key,
                      .newcomm = c };
    return enqueue(&t);
}

/* Under lock: the communicator leaves its clique; the clique goes with its
 * last rank. */
static void comm_release(struct ncclComm *c)
{
    struct clique *q = c->clique;
    free(c->send_seq);
    free(c->recv_seq);
    free(c->ops);
    c->send_seq = c->recv_seq = NULL;
    c->ops = NULL;
    c->magic = COMM_DEAD;
    c->dead_next = dead;
    dead = c;
    if (q) {
        q->ranks[c->rank] = NULL;
        if (--q->live == 0) {
            int referenced = 0;
            for (struct rdv *r = rdvs; r; r = r->next)
                referenced |= r->clique == q;
            if (!referenced) {
                free(q->ranks);
                free(q);
            }
        }
    }
}

/* ncclCommDestroy / ncclCommAbort (src/init.cc): a NULL comm is success; a
 * destroyed one ncclInvalidArgument ("has already been destroyed": the
 * sim keeps the few bytes of the struct so the check cannot read freed
 * memory).  Work in flight has completed at submission. */
static ncclResult_t destroy(ncclComm_t comm, const char *name)
{
    if (!comm)
        return ncclSuccess;
    ncclResult_t r = comm_check(comm, name);
    if (r != ncclSuccess)
        return r;
    pthread_mutex_lock(&lock);
    comm_release(comm);
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommDestroy, ncclComm_t comm)
{
    NVTX_RANGE();
    return destroy(comm, "CommDestroy");
}

NCCL_API(ncclResult_t, ncclCommAbort, ncclComm_t comm)
{
    NVTX_RANGE();
    return destroy(comm, "CommAbort");
}

/* ncclCommFinalize: once (a second call is ncclInvalidArgument) */
NCCL_API(ncclResult_t, ncclCommFinalize, ncclComm_t comm)
{
    NVTX_RANGE();
    if (!comm)
        return ncclSuccess;
    ncclResult_t r = comm_check(comm, "CommFinalize");
    if (r == ncclSuccess)
        r = ensure_ready(comm);
    if (r != ncclSuccess)
        return group_err(r);
    if (comm->finalized)
        return group_err(ncclInvalidArgument);
    comm->finalized = 1;
    return ncclSuccess;
}

/* ------------------------------------------------------------------ */
/* Queries.  ncclCommCount, ncclCommCuDevice and ncclCommUserRank are not
 * plain getters on a real NCCL (src/init.cc): each pushes an NVTX range,
 * checks the communicator (CommCheck: a WARN line under NCCL_DEBUG=WARN
 * when it is bad) and waits for it to be ready (ncclCommEnsureReady, which
 * may complete a nonblocking group).  So do these. */

NCCL_API(ncclResult_t, ncclCommCount, const ncclComm_t comm, int *count)
{
    NVTX_RANGE();
    ncclResult_t r = comm_check(comm, "CommCount");
    if (r != ncclSuccess)
        return r;
    if (!count) {
        warn("CommCount : count argument is NULL");
        return ncclInvalidArgument;
    }
    if ((r = ensure_ready(comm)) != ncclSuccess)
        return r;
    *count = comm->nranks;
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommCuDevice, const ncclComm_t comm, int *device)
{
    NVTX_RANGE();
    ncclResult_t r = comm_check(comm, "CommCuDevice");
    if (r != ncclSuccess)
        return r;
    if (!device) {
        warn("CommCuDevice : devid argument is NULL");
        return ncclInvalidArgument;
    }
    if ((r = ensure_ready(comm)) != ncclSuccess)
        return r;
    *device = comm->dev;
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommUserRank, const ncclComm_t comm, int *rank)
{
    NVTX_RANGE();
    ncclResult_t r = comm_check(comm, "CommUserRank");
    if (r != ncclSuccess)
        return r;
    if (!rank) {
        warn("CommUserRank : rank argument is NULL");
        return ncclInvalidArgument;
    }
    if ((r = ensure_ready(comm)) != ncclSuccess)
        return r;
    *rank = comm->rank;
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommGetAsyncError, ncclComm_t comm, ncclResult_t *asyncError)
{
    ncclResult_t r = comm_check(comm, "ncclGetAsyncError");
    if (r != ncclSuccess)
        return r;
    if (!asyncError) {
        warn("ncclGetAsyncError : asyncError argument is NULL");
        return ncclInvalidArgument;
    }
    pthread_mutex_lock(&lock);
    *asyncError = comm->async_error;
    pthread_mutex_unlock(&lock);
    return ncclSuccess;
}

/* src/init.cc ncclGetErrorString: NCCL's own strings */
NCCL_API(const char *, ncclGetErrorString, ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

NCCL_API(const char *, ncclGetLastError, const ncclComm_t comm)
{
    (void)comm;
    return last_error;
}

/* ncclRedOpCreatePreMulSum (src/enqueue.cc): a per-communicator operator
 * ncclNumOps + i; the scalar copied now (ncclScalarHostImmediate) or read
 * by the kernel through the pointer (ncclScalarDevice). */
NCCL_API(ncclResult_t, ncclRedOpCreatePreMulSum, ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
         ncclScalarResidence_t residence, ncclComm_t comm)
{
    ncclResult_t r = comm_check(comm, "ncclRedOpCreatePreMulSum");
    if (r == ncclSuccess)
        r = ensure_ready(comm);
    if (r != ncclSuccess)
        return r;
    size_t sz = simnccl_type_size(datatype);
    if (!op || !scalar || !sz)
        return ncclInvalidArgument;
    int ix = 0;
    while (ix < comm->nops && comm->ops[ix].used)
        ix++;
    if (ix == comm->nops) {
        struct user_op *ops = realloc(comm->ops, (size_t)(ix + 4) * sizeof *ops);
        if (!ops)
            return ncclSystemError;
        memset(ops + ix, 0, 4 * sizeof *ops);
        comm->ops = ops;
        comm->nops = ix + 4;
    }
    struct user_op *u = &comm->ops[ix];
    memset(u, 0, sizeof *u);
    u->used = 1;
    u->type = datatype;
    u->op.kind = SIMNCCL_PREMULSUM;
    if (residence == ncclScalarHostImmediate)
        memcpy(&u->op.scalar, scalar, sz);
    else
        u->op.scalar_ptr = scalar;
    *op = (ncclRedOp_t)((int)ncclNumOps + ix);
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclRedOpDestroy, ncclRedOp_t op, ncclComm_t comm)
{
    if (0 <= (int)op && (int)op < (int)ncclNumOps) {
        warn("ncclRedOpDestroy : operator is a NCCL builtin.");
        return ncclInvalidArgument;
    }
    if ((int)op < 0) {
        warn("ncclRedOpDestroy :  operator is garbage.");
        return ncclInvalidArgument;
    }
    if (!comm_ok(comm)) {
        warn("ncclRedOpDestroy : invalid communicator passed.");
        return ncclInvalidArgument;
    }
    int ix = (int)op - (int)ncclNumOps;
    if (ix >= comm->nops || !comm->ops[ix].used) {
        warn("ncclRedOpDestroy : operator unknown to this communicator.");
        return ncclInvalidArgument;
    }
    comm->ops[ix].used = 0;
    return ncclSuccess;
}

/* ncclMemAlloc / ncclMemFree: device memory of the current device (NCCL's
 * comes from cuMemCreate, rounded up to the granularity). */
NCCL_API(ncclResult_t, ncclMemAlloc, void **ptr, size_t size)
{
    NVTX_RANGE();
    if (!ptr)
        return ncclInvalidArgument;
    *ptr = NULL;
    if (size == 0)
        return ncclSuccess;
    CUdeviceptr d;
    if (current_device(1) < 0 || simlib_drv.cuMemAlloc(&d, size) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    *ptr = (void *)(uintptr_t)d;
    return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclMemFree, void *ptr)
{
    NVTX_RANGE();
    if (!ptr)
        return ncclSuccess;
    if (driver() != 0 || simlib_drv.cuMemFree((CUdeviceptr)(uintptr_t)ptr) != CUDA_SUCCESS)
        return ncclUnhandledCudaError;
    return ncclSuccess;
}

/* User buffer registration: an optimisation only; the handle is a token. */
NCCL_API(ncclResult_t, ncclCommRegister, const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    NVTX_RANGE();
    (void)buff, (void)size;
    ncclResult_t r = comm_check(comm, "ncclCommRegister");
    if (r != ncclSuccess)
        return r;
    if (!handle)
        return ncclInvalidArgument;
    *handle = malloc(1);
    return *handle ? ncclSuccess : ncclSystemError;
}

NCCL_API(ncclResult_t, ncclCommDeregister, const ncclComm_t comm, void *handle)
{
    NVTX_RANGE();
    ncclResult_t r = comm_check(comm, "ncclCommDeregister");
    if (r != ncclSuccess)
        return r;
    free(handle);
    return ncclSuccess;
}

NCCL_API(void, ncclResetDebugInit, void)
{
}
