/* CUDA graphs: kernel, memset, memcpy, host, empty, child-graph, event
 * record / wait and memory allocation / free nodes; edges; clones;
 * instantiation, launch, parameter updates of graphs and executable graphs,
 * whole-graph exec updates; stream capture (core.c starts and ends it) with
 * the capture modes' rules.
 *
 * Nodes are kept in insertion order with their dependencies.  Instantiation
 * orders them topologically (the earliest inserted ready node first, so a
 * captured graph runs in capture order) and flattens child graphs; a launch
 * runs the nodes one after another in the launch stream (all stream work in
 * the sim completes at submission).  Kernel parameters are copied when a
 * node is added or updated, as the real driver does; an executable graph
 * holds its own copy of every node.
 *
 * Graph memory: an allocation node's memory is made when the node is (at
 * an address fixed for the graph's life, mem.c's sim_mem_graph_alloc),
 * shared by clones and executable graphs and freed with the last of them
 * (an executable graph outlives the graph it was made from); allocation and
 * free nodes do nothing at launch, so graph memory stays reachable after
 * its free node (real hardware would fault). */
#include "internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)
#define LOCKED(expr) __extension__({ sim_lock(); CUresult r__ = (expr); sim_unlock(); r__; })

/* an allocation node's memory, shared by the clones of its graph */
struct gmem { CUdeviceptr p; size_t size; int dev; unsigned refs; };

struct sim_gnode {
    struct sim_obj o;
    struct sim_graph *graph;
    CUgraphNodeType type;
    struct sim_gnode **deps;       /* graph nodes only (NULL in executable copies) */
    size_t ndeps, capdeps;
    struct sim_gnode *clone_of;    /* cuGraphClone: the original node */
    struct sim_graph *child;       /* child graph node: its own copy of the graph */
    struct gmem *mem;              /* memory allocation node */
    CUDA_MEM_ALLOC_NODE_PARAMS alloc;
    CUdeviceptr free_ptr;          /* memory free node */
    CUevent event;                 /* event record / wait node */
    /* kernel */
    const void *func;              /* CUfunction or CUkernel */
    unsigned grid[3], block[3], smem;
    unsigned char *argbuf;         /* copied parameter values */
    size_t argsize;
    void **args;
    unsigned nargs;
    /* memset, memcpy, host */
    CUDA_MEMSET_NODE_PARAMS ms;
    CUDA_MEMCPY3D mc;
    CUDA_HOST_NODE_PARAMS hp;
};

struct sim_graph {
    struct sim_obj o;
    struct sim_gnode **nodes;
    size_t n, cap;
    unsigned long long live_capture;   /* id of the capture filling it, 0 after its end */
    CUstreamCaptureMode cap_mode;
    pthread_t cap_thread;              /* began the capture */
    int cap_invalid;                   /* a prohibited call invalidated the capture */
    int cap_user;                      /* cuStreamBeginCaptureToGraph: the program's graph */
};

struct sim_gexec {
    struct sim_obj o;
    struct sim_gnode *nodes;       /* copies, not registered as handles */
    struct sim_gnode **orig;       /* the graph node each copy came from */
    size_t n;
    unsigned long long flags;
};

/* graph memory per device (cuDeviceGetGraphMemAttribute) */
static cuuint64_t g_gmem_used[SIM_MAX_DEVICES], g_gmem_high[SIM_MAX_DEVICES];

static void gmem_unref(struct gmem *m)
{
    if (!m || --m->refs)
        return;
    sim_mem_graph_free(m->p);
    g_gmem_used[m->dev] -= m->size;
    free(m);
}

/* Graphs being captured into, for the capture-mode rules. */
static struct sim_graph **g_capturing;
static size_t g_ncapturing, g_capcapturing;

/* Copies a launch's parameters (kernelParams or `extra`) into the node. */
static CUresult node_set_kernel(struct sim_gnode *n, const void *func, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **params, void **extra)
{
    const struct sim_kernel_info *ki = sim_func_info(func);
    if (!ki)
        return CUDA_ERROR_INVALID_HANDLE;
    if (params && extra)
        return CUDA_ERROR_INVALID_VALUE;
    size_t total = 0;
    for (unsigned i = 0; i < ki->nparams; i++)
        if ((size_t)ki->params[i].offset + ki->params[i].size > total)
            total = (size_t)ki->params[i].offset + ki->params[i].size;
    const unsigned char *packed = NULL;
    if (extra) {
        size_t *bsize = NULL;
        for (void **e = extra; *e && *e != CU_LAUNCH_PARAM_END; e += 2) {
            if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER)
                packed = e[1];
            else if (*e == CU_LAUNCH_PARAM_BUFFER_SIZE)
                bsize = e[1];
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (ki->nparams && (!packed || !bsize || *bsize < total))
            return CUDA_ERROR_INVALID_VALUE;
    } else if (ki->nparams && !params)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned char *buf = calloc(1, total + 1);
    void **args = calloc(ki->nparams + 1, sizeof *args);
    if (!buf || !args) {
        free(buf);
        free(args);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (unsigned i = 0; i < ki->nparams; i++) {
        const void *src = packed ? packed + ki->params[i].offset : params[i];
        if (!src || !sim_host_range_mapped((uintptr_t)src, ki->params[i].size)) {
            free(buf);
            free(args);
            return CUDA_ERROR_INVALID_VALUE;
        }
        memcpy(buf + ki->params[i].offset, src, ki->params[i].size);
        args[i] = buf + ki->params[i].offset;
    }
    free(n->argbuf);
    free(n->args);
    n->argbuf = buf;
    n->argsize = total;
    n->args = args;
    n->nargs = ki->nparams;
    n->func = func;
    memcpy(n->grid, grid, sizeof n->grid);
    memcpy(n->block, block, sizeof n->block);
    n->smem = smem;
    return CUDA_SUCCESS;
}

/* Deep copy of a node (its parameter buffer re-pointed). */
static CUresult node_copy(struct sim_gnode *dst, const struct sim_gnode *src)
{
    *dst = *src;
    dst->argbuf = NULL;
    dst->args = NULL;
    dst->deps = NULL;
    dst->ndeps = dst->capdeps = 0;
    dst->child = NULL;
    dst->mem = NULL;
    if (src->type != CU_GRAPH_NODE_TYPE_KERNEL)
        return CUDA_SUCCESS;
    size_t total = src->argsize;
    dst->argbuf = malloc(total + 1);
    dst->args = calloc(src->nargs + 1, sizeof *dst->args);
    if (!dst->argbuf || !dst->args) {
        free(dst->argbuf);
        free(dst->args);
        dst->argbuf = NULL;
        dst->args = NULL;
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    memcpy(dst->argbuf, src->argbuf, total);
    for (unsigned i = 0; i < src->nargs; i++)
        dst->args[i] = dst->argbuf + ((unsigned char *)src->args[i] - src->argbuf);
    return CUDA_SUCCESS;
}

static void node_release(struct sim_gnode *n)
{
    free(n->argbuf);
    free(n->args);
    n->argbuf = NULL;
    n->args = NULL;
}

struct sim_graph *sim_graph_new(void)
{
    struct sim_graph *g = calloc(1, sizeof *g);
    if (g)
        sim_obj_add(g, T_GRAPH);
    return g;
}

void sim_graph_capture_set(struct sim_graph *g, unsigned long long id)
{
    g->live_capture = id;
    for (size_t i = 0; i < g_ncapturing; i++)
        if (g_capturing[i] == g)
            g_capturing[i--] = g_capturing[--g_ncapturing];
    if (!id)
        return;
    if (g_ncapturing == g_capcapturing) {
        size_t nc = g_capcapturing ? g_capcapturing * 2 : 8;
        struct sim_graph **n = realloc(g_capturing, nc * sizeof *n);
        if (!n)
            return;     /* then exempt from the mode rules */
        g_capturing = n;
        g_capcapturing = nc;
    }
    g_capturing[g_ncapturing++] = g;
}

void sim_graph_capture_begin(struct sim_graph *g, unsigned long long id, CUstreamCaptureMode mode, int user_graph)
{
    g->cap_mode = mode;
    g->cap_thread = pthread_self();
    g->cap_invalid = 0;
    g->cap_user = user_graph;
    sim_graph_capture_set(g, id);
}

int sim_graph_capture_invalid(const struct sim_graph *g) { return g && g->cap_invalid; }

void sim_graph_capture_abandon(struct sim_graph *g)
{
    if (!g->cap_user)
        sim_graph_free(g);
}

/* The capture modes (cuda.h, cuThreadExchangeStreamCaptureMode): a thread in
 * GLOBAL mode may not make a potentially unsafe call while it, or any
 * thread, captures in GLOBAL mode, or while it captures in THREAD_LOCAL
 * mode; in THREAD_LOCAL mode only its own (non-relaxed) captures count; in
 * RELAXED mode nothing does. */
CUresult sim_capture_guard(void)
{
    CUstreamCaptureMode m = sim_thread_capture_mode();
    if (m == CU_STREAM_CAPTURE_MODE_RELAXED || !g_ncapturing)
        return CUDA_SUCCESS;
    pthread_t self = pthread_self();
    int prohibited = 0;
    for (size_t i = 0; i < g_ncapturing; i++) {
        struct sim_graph *g = g_capturing[i];
        if (g->cap_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
            continue;
        int mine = pthread_equal(g->cap_thread, self);
        if (mine || (m == CU_STREAM_CAPTURE_MODE_GLOBAL && g->cap_mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            g->cap_invalid = 1;
            prohibited = 1;
        }
    }
    return prohibited ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

int sim_graph_capture_live(const struct sim_graph *g, unsigned long long id)
{
    return id && sim_obj_get(g, T_GRAPH) && g->live_capture == id;
}

static void node_free(struct sim_gnode *n)
{
    node_release(n);
    free(n->deps);
    if (n->child)
        sim_graph_free(n->child);
    gmem_unref(n->mem);
    sim_obj_del(n);
    free(n);
}

void sim_graph_free(struct sim_graph *g)
{
    if (g->live_capture)
        sim_graph_capture_set(g, 0);
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    sim_obj_del(g);
    free(g);
}

static int dep_add(struct sim_gnode *n, struct sim_gnode *d)
{
    for (size_t i = 0; i < n->ndeps; i++)
        if (n->deps[i] == d)
            return 0;
    if (n->ndeps == n->capdeps) {
        size_t nc = n->capdeps ? n->capdeps * 2 : 4;
        struct sim_gnode **nd = realloc(n->deps, nc * sizeof *nd);
        if (!nd)
            return -1;
        n->deps = nd;
        n->capdeps = nc;
    }
    n->deps[n->ndeps++] = d;
    return 0;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_lock();
    struct sim_graph *g = sim_graph_new();
    sim_unlock();
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *phGraph = (CUgraph)g;
    return CUDA_SUCCESS;
}

static CUresult graph_destroy(CUgraph h)
{
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    sim_graph_free(g);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(graph_destroy(hGraph)); }

/* Creates a node of `type` in graph h after checking its dependencies. */
static CUresult node_new(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, CUgraphNodeType type,
                         struct sim_gnode **pn)
{
    if (!out || (ndeps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < ndeps; i++) {
        struct sim_gnode *d = sim_obj_get(deps[i], T_GNODE);
        if (!d || d->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
    }
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 16;
        struct sim_gnode **nn = realloc(g->nodes, nc * sizeof *nn);
        if (!nn)
            return CUDA_ERROR_OUT_OF_MEMORY;
        g->nodes = nn;
        g->cap = nc;
    }
    struct sim_gnode *n = calloc(1, sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->graph = g;
    n->type = type;
    for (size_t i = 0; i < ndeps; i++)
        if (dep_add(n, (struct sim_gnode *)deps[i]) != 0) {
            free(n->deps);
            free(n);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    *pn = n;
    return CUDA_SUCCESS;
}

/* A node that node_new made but that is not committed. */
static void node_discard(struct sim_gnode *n)
{
    node_release(n);
    free(n->deps);
    free(n);
}

static void node_commit(CUgraphNode *out, struct sim_gnode *n)
{
    struct sim_graph *g = n->graph;
    g->nodes[g->n++] = n;
    sim_obj_add(n, T_GNODE);
    *out = (CUgraphNode)n;
}

static CUresult add_kernel(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, const void *func,
                           const unsigned grid[3], const unsigned block[3], unsigned smem, void **params, void **extra)
{
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r != CUDA_SUCCESS)
        return r;
    r = node_set_kernel(n, func, grid, block, smem, params, extra);
    if (r != CUDA_SUCCESS) {
        node_discard(n);
        return r;
    }
    node_commit(out, n);
    return CUDA_SUCCESS;
}

/* ---- stream capture: each captured operation depends on the previous one ---- */
static CUresult capture_node(struct sim_stream *s, CUgraphNodeType type, struct sim_gnode **pn)
{
    if (s->capture->cap_invalid)
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    CUgraphNode dep = (CUgraphNode)s->capture_last, out;
    return node_new(&out, (CUgraph)s->capture, dep ? &dep : NULL, dep ? 1 : 0, type, pn);
}

static void capture_commit(struct sim_stream *s, struct sim_gnode *n)
{
    CUgraphNode out;
    node_commit(&out, n);
    s->capture_last = n;
}

CUresult sim_capture_kernel(struct sim_stream *s, const void *f, const unsigned grid[3], const unsigned block[3],
                            unsigned smem, void **args)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_KERNEL, &n);
    if (r != CUDA_SUCCESS)
        return r;
    r = node_set_kernel(n, f, grid, block, smem, args, NULL);
    if (r != CUDA_SUCCESS) {
        node_discard(n);
        return r;
    }
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

CUresult sim_capture_memcpy(struct sim_stream *s, uintptr_t dst, uintptr_t src, size_t bytes)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->mc.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    n->mc.srcDevice = src;
    n->mc.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    n->mc.dstDevice = dst;
    n->mc.WidthInBytes = bytes;
    n->mc.Height = 1;
    n->mc.Depth = 1;
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

CUresult sim_capture_memset(struct sim_stream *s, CUdeviceptr dst, size_t pitch, unsigned val, unsigned esz,
                            size_t width, size_t height)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->ms = (CUDA_MEMSET_NODE_PARAMS){ dst, pitch, val, esz, width, height };
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

CUresult sim_capture_host(struct sim_stream *s, CUhostFn fn, void *ud)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->hp.fn = fn;
    n->hp.userData = ud;
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

#define KP_GRID(p)  (const unsigned[3]){ (p)->gridDimX, (p)->gridDimY, (p)->gridDimZ }
#define KP_BLOCK(p) (const unsigned[3]){ (p)->blockDimX, (p)->blockDimY, (p)->blockDimZ }

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    const void *f = p->func ? (const void *)p->func : (const void *)p->kern;
    return LOCKED(add_kernel(phGraphNode, hGraph, dependencies, numDependencies, f, KP_GRID(p), KP_BLOCK(p),
                             p->sharedMemBytes, p->kernelParams, p->extra));
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return LOCKED(add_kernel(phGraphNode, hGraph, dependencies, numDependencies, p->func, KP_GRID(p), KP_BLOCK(p),
                             p->sharedMemBytes, p->kernelParams, p->extra));
}

static CUresult kernel_get(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS *p)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!p || !n || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
        return CUDA_ERROR_INVALID_VALUE;
    memset(p, 0, sizeof *p);
    p->func = (CUfunction)n->func;
    p->gridDimX = n->grid[0]; p->gridDimY = n->grid[1]; p->gridDimZ = n->grid[2];
    p->blockDimX = n->block[0]; p->blockDimY = n->block[1]; p->blockDimZ = n->block[2];
    p->sharedMemBytes = n->smem;
    p->kernelParams = n->args;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(kernel_get(hNode, nodeParams)); }

static CUresult kernel_set(struct sim_gnode *n, const void *f, const unsigned grid[3], const unsigned block[3], unsigned smem,
                           void **params, void **extra)
{
    if (!n || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
        return CUDA_ERROR_INVALID_VALUE;
    return node_set_kernel(n, f, grid, block, smem, params, extra);
}
CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    const void *f = p->func ? (const void *)p->func : (const void *)p->kern;
    return LOCKED(kernel_set(sim_obj_get(hNode, T_GNODE), f, KP_GRID(p), KP_BLOCK(p), p->sharedMemBytes, p->kernelParams, p->extra));
}
CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return LOCKED(kernel_set(sim_obj_get(hNode, T_GNODE), p->func, KP_GRID(p), KP_BLOCK(p), p->sharedMemBytes, p->kernelParams, p->extra));
}

static CUresult add_memset(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p)
{
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->width || !p->height)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_MEMSET, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->ms = *p;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    (void)ctx;
    return LOCKED(add_memset(phGraphNode, hGraph, dependencies, numDependencies, memsetParams));
}

static CUresult add_memcpy(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, const CUDA_MEMCPY3D *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_MEMCPY, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->mc = *p;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    (void)ctx;
    return LOCKED(add_memcpy(phGraphNode, hGraph, dependencies, numDependencies, copyParams));
}

static CUresult add_host(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
    if (!p || !p->fn)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_HOST, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->hp = *p;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(add_host(phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
}

static CUresult add_empty(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps)
{
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_EMPTY, &n);
    if (r == CUDA_SUCCESS)
        node_commit(out, n);
    return r;
}
CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(add_empty(phGraphNode, hGraph, dependencies, numDependencies));
}

static CUresult node_type(CUgraphNode h, CUgraphNodeType *t)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || !t)
        return CUDA_ERROR_INVALID_VALUE;
    *t = n->type;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_type(hNode, type)); }

static CUresult get_nodes(CUgraph h, CUgraphNode *nodes, size_t *num)
{
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    if (!g || !num)
        return CUDA_ERROR_INVALID_VALUE;
    if (nodes)
        for (size_t i = 0; i < *num && i < g->n; i++)
            nodes[i] = (CUgraphNode)g->nodes[i];
    *num = g->n;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(get_nodes(hGraph, nodes, numNodes)); }

/* ---- memory allocation and free nodes ---- */
static CUresult mem_alloc_node(struct sim_gnode *n, int dev, size_t size, const unsigned char access[SIM_MAX_DEVICES])
{
    struct gmem *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = sim_mem_graph_alloc(dev, size, access, &m->p);
    if (r != CUDA_SUCCESS) {
        free(m);
        return r;
    }
    m->size = size;
    m->dev = dev;
    m->refs = 1;
    n->mem = m;
    n->alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    n->alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    n->alloc.poolProps.location.id = dev;
    n->alloc.bytesize = size;
    n->alloc.dptr = m->p;
    g_gmem_used[dev] += size;
    if (g_gmem_used[dev] > g_gmem_high[dev])
        g_gmem_high[dev] = g_gmem_used[dev];
    return CUDA_SUCCESS;
}

static CUresult add_mem_alloc(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
    if (!p || !p->bytesize || p->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        p->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED || (p->accessDescCount && !p->accessDescs))
        return CUDA_ERROR_INVALID_VALUE;
    int dev = p->poolProps.location.id;
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    unsigned char access[SIM_MAX_DEVICES] = { 0 };
    for (size_t i = 0; i < p->accessDescCount; i++) {
        const CUmemAccessDesc *d = &p->accessDescs[i];
        if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE || d->location.id < 0 || d->location.id >= sim_g.ndev)
            return CUDA_ERROR_INVALID_VALUE;
        if (d->location.id != dev && d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && !sim_g.peer_ok[d->location.id][dev])
            return CUDA_ERROR_INVALID_DEVICE;
        access[d->location.id] = (unsigned char)d->flags;
    }
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = mem_alloc_node(n, dev, p->bytesize, access)) != CUDA_SUCCESS) {
        node_discard(n);
        return r;
    }
    n->alloc.poolProps = p->poolProps;
    p->dptr = n->alloc.dptr;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(add_mem_alloc(phGraphNode, hGraph, dependencies, numDependencies, nodeParams));
}

static CUresult add_mem_free(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, CUdeviceptr p)
{
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_MEM_FREE, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->free_ptr = p;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUdeviceptr dptr)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(add_mem_free(phGraphNode, hGraph, dependencies, numDependencies, dptr));
}

CUresult sim_capture_mem_alloc(struct sim_stream *s, int dev, size_t size, const unsigned char access[SIM_MAX_DEVICES],
                               CUdeviceptr *out)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_MEM_ALLOC, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = mem_alloc_node(n, dev, size, access)) != CUDA_SUCCESS) {
        node_discard(n);
        return r;
    }
    *out = n->alloc.dptr;
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

CUresult sim_capture_mem_free(struct sim_stream *s, CUdeviceptr p)
{
    struct sim_gnode *n;
    CUresult r = capture_node(s, CU_GRAPH_NODE_TYPE_MEM_FREE, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->free_ptr = p;
    capture_commit(s, n);
    return CUDA_SUCCESS;
}

static CUresult mem_node_get(CUgraphNode h, CUgraphNodeType t, void *out)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || !out || n->type != t)
        return CUDA_ERROR_INVALID_VALUE;
    if (t == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
        *(CUDA_MEM_ALLOC_NODE_PARAMS *)out = n->alloc;
        ((CUDA_MEM_ALLOC_NODE_PARAMS *)out)->accessDescs = NULL;
        ((CUDA_MEM_ALLOC_NODE_PARAMS *)out)->accessDescCount = 0;
    } else
        *(CUdeviceptr *)out = n->free_ptr;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(mem_node_get(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC, params_out)); }
CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(mem_node_get(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE, dptr_out)); }

static CUresult graph_mem_attr(CUdevice dev, CUgraphMem_attribute attr, void *value, int set)
{
    if (dev < 0 || dev >= sim_g.ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value)
        return CUDA_ERROR_INVALID_VALUE;
    cuuint64_t *v = value;
    switch (attr) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
        if (set)
            return CUDA_ERROR_INVALID_VALUE;
        *v = g_gmem_used[dev];
        return CUDA_SUCCESS;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
        if (!set)
            *v = g_gmem_high[dev];
        else if (*v != 0)
            return CUDA_ERROR_INVALID_VALUE;
        else
            g_gmem_high[dev] = g_gmem_used[dev];
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(graph_mem_attr(device, attr, value, 0)); }
CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void *value) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(graph_mem_attr(device, attr, value, 1)); }
CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
    ENTER(CUDA_ERROR_INVALID_DEVICE);
    return device >= 0 && device < sim_g.ndev ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* ---- child graphs, events ---- */
static CUresult graph_clone(struct sim_graph *g, struct sim_graph **out);

static CUresult add_child(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, CUgraph child)
{
    struct sim_graph *c = sim_obj_get(child, T_GRAPH);
    if (!c || c == sim_obj_get(h, T_GRAPH))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, CU_GRAPH_NODE_TYPE_GRAPH, &n);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = graph_clone(c, &n->child)) != CUDA_SUCCESS) {
        node_discard(n);
        return r;
    }
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUgraph childGraph)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    return LOCKED(add_child(phGraphNode, hGraph, dependencies, numDependencies, childGraph));
}

static CUresult child_get(CUgraphNode h, CUgraph *out)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || !out || n->type != CU_GRAPH_NODE_TYPE_GRAPH)
        return CUDA_ERROR_INVALID_VALUE;
    *out = (CUgraph)n->child;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(child_get(hNode, phGraph)); }

static CUresult add_event(CUgraphNode *out, CUgraph h, const CUgraphNode *deps, size_t ndeps, CUevent ev, CUgraphNodeType t)
{
    if (!sim_obj_get(ev, T_EVENT))
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gnode *n;
    CUresult r = node_new(out, h, deps, ndeps, t, &n);
    if (r != CUDA_SUCCESS)
        return r;
    n->event = ev;
    node_commit(out, n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(add_event(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_EVENT_RECORD)); }
CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, CUevent event)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(add_event(phGraphNode, hGraph, dependencies, numDependencies, event, CU_GRAPH_NODE_TYPE_WAIT_EVENT)); }

static CUresult event_node(CUgraphNode h, CUgraphNodeType t, CUevent *get, CUevent set)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || n->type != t || (get == NULL && !sim_obj_get(set, T_EVENT)))
        return CUDA_ERROR_INVALID_VALUE;
    if (get)
        *get = n->event;
    else
        n->event = set;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out) { ENTER(CUDA_ERROR_INVALID_VALUE); if (!event_out) return CUDA_ERROR_INVALID_VALUE; return LOCKED(event_node(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out, NULL)); }
CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(event_node(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, NULL, event)); }
CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out) { ENTER(CUDA_ERROR_INVALID_VALUE); if (!event_out) return CUDA_ERROR_INVALID_VALUE; return LOCKED(event_node(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out, NULL)); }
CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(event_node(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, NULL, event)); }

/* ---- node parameters ---- */
static CUresult node_params(CUgraphNode h, CUgraphNodeType t, void *get, const void *set)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || n->type != t || (!get && !set))
        return CUDA_ERROR_INVALID_VALUE;
    switch (t) {
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (get)
            *(CUDA_MEMCPY3D *)get = n->mc;
        else
            n->mc = *(const CUDA_MEMCPY3D *)set;
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        if (get)
            *(CUDA_MEMSET_NODE_PARAMS *)get = n->ms;
        else {
            const CUDA_MEMSET_NODE_PARAMS *p = set;
            if ((p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->width || !p->height)
                return CUDA_ERROR_INVALID_VALUE;
            n->ms = *p;
        }
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        if (get)
            *(CUDA_HOST_NODE_PARAMS *)get = n->hp;
        else if (!((const CUDA_HOST_NODE_PARAMS *)set)->fn)
            return CUDA_ERROR_INVALID_VALUE;
        else
            n->hp = *(const CUDA_HOST_NODE_PARAMS *)set;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, nodeParams, NULL)); }
CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, NULL, nodeParams)); }
CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_MEMSET, nodeParams, NULL)); }
CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_MEMSET, NULL, nodeParams)); }
CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_HOST, nodeParams, NULL)); }
CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_params(hNode, CU_GRAPH_NODE_TYPE_HOST, NULL, nodeParams)); }

static CUresult kernel_get_v1(CUgraphNode h, CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    CUDA_KERNEL_NODE_PARAMS q;
    CUresult r = kernel_get(h, &q);
    if (r == CUDA_SUCCESS && p) {
        memset(p, 0, sizeof *p);
        p->func = q.func;
        p->gridDimX = q.gridDimX; p->gridDimY = q.gridDimY; p->gridDimZ = q.gridDimZ;
        p->blockDimX = q.blockDimX; p->blockDimY = q.blockDimY; p->blockDimZ = q.blockDimZ;
        p->sharedMemBytes = q.sharedMemBytes;
        p->kernelParams = q.kernelParams;
    }
    return p ? r : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(kernel_get_v1(hNode, nodeParams)); }

/* ---- edges ---- */
static struct sim_graph *graph_of(CUgraph h) { return sim_obj_get(h, T_GRAPH); }

static CUresult get_edges(CUgraph h, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *data, size_t *num)
{
    struct sim_graph *g = graph_of(h);
    if (!g || !num || ((from == NULL) != (to == NULL)))
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++, k++)
            if (from && k < *num) {
                from[k] = (CUgraphNode)g->nodes[i]->deps[j];
                to[k] = (CUgraphNode)g->nodes[i];
                if (data)
                    memset(&data[k], 0, sizeof data[k]);
            }
    if (from && k < *num)
        for (size_t i = k; i < *num; i++)
            from[i] = to[i] = NULL;
    *num = k;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(get_edges(hGraph, from, to, NULL, numEdges)); }
CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edgeData, size_t *numEdges) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(get_edges(hGraph, from, to, edgeData, numEdges)); }

static CUresult root_nodes(CUgraph h, CUgraphNode *nodes, size_t *num)
{
    struct sim_graph *g = graph_of(h);
    if (!g || !num)
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        if (!g->nodes[i]->ndeps) {
            if (nodes && k < *num)
                nodes[k] = (CUgraphNode)g->nodes[i];
            k++;
        }
    *num = k;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(root_nodes(hGraph, rootNodes, numRootNodes)); }

/* dependencies (dependents == 0) or dependent nodes of a node */
static CUresult node_links(CUgraphNode h, CUgraphNode *out, CUgraphEdgeData *data, size_t *num, int dependents)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n || !num)
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    if (!dependents) {
        for (; k < n->ndeps; k++)
            if (out && k < *num)
                out[k] = (CUgraphNode)n->deps[k];
    } else {
        struct sim_graph *g = n->graph;
        for (size_t i = 0; i < g->n; i++)
            for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
                if (g->nodes[i]->deps[j] == n) {
                    if (out && k < *num)
                        out[k] = (CUgraphNode)g->nodes[i];
                    k++;
                }
    }
    if (data && out)
        memset(data, 0, (k < *num ? k : *num) * sizeof *data);
    *num = k;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_links(hNode, dependencies, NULL, numDependencies, 0)); }
CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies, CUgraphEdgeData *edgeData, size_t *numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_links(hNode, dependencies, edgeData, numDependencies, 0)); }
CUresult CUDAAPI cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_links(hNode, dependentNodes, NULL, numDependentNodes, 1)); }
CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes, CUgraphEdgeData *edgeData, size_t *numDependentNodes) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(node_links(hNode, dependentNodes, edgeData, numDependentNodes, 1)); }

static CUresult edges_change(CUgraph h, const CUgraphNode *from, const CUgraphNode *to, size_t num, int add)
{
    struct sim_graph *g = graph_of(h);
    if (!g || (num && (!from || !to)))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < num; i++) {
        struct sim_gnode *a = sim_obj_get(from[i], T_GNODE), *b = sim_obj_get(to[i], T_GNODE);
        if (!a || !b || a->graph != g || b->graph != g || a == b)
            return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < num; i++) {
        struct sim_gnode *a = (struct sim_gnode *)from[i], *b = (struct sim_gnode *)to[i];
        if (add) {
            if (dep_add(b, a) != 0)
                return CUDA_ERROR_OUT_OF_MEMORY;
            continue;
        }
        size_t j = 0;
        while (j < b->ndeps && b->deps[j] != a)
            j++;
        if (j == b->ndeps)
            return CUDA_ERROR_INVALID_VALUE;
        memmove(&b->deps[j], &b->deps[j + 1], (b->ndeps - j - 1) * sizeof b->deps[0]);
        b->ndeps--;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(edges_change(hGraph, from, to, numDependencies, 1)); }
CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edgeData, size_t numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); (void)edgeData; return LOCKED(edges_change(hGraph, from, to, numDependencies, 1)); }
CUresult CUDAAPI cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(edges_change(hGraph, from, to, numDependencies, 0)); }
CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edgeData, size_t numDependencies) { ENTER(CUDA_ERROR_INVALID_VALUE); (void)edgeData; return LOCKED(edges_change(hGraph, from, to, numDependencies, 0)); }

static CUresult destroy_node(CUgraphNode h)
{
    struct sim_gnode *n = sim_obj_get(h, T_GNODE);
    if (!n)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_graph *g = n->graph;
    for (size_t i = 0; i < g->n; i++) {
        struct sim_gnode *m = g->nodes[i];
        for (size_t j = 0; j < m->ndeps; j++)
            if (m->deps[j] == n)
                m->deps[j--] = m->deps[--m->ndeps];
        if (m == n)
            g->nodes[i--] = NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i])
            g->nodes[k++] = g->nodes[i];
    g->n = k;
    node_free(n);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(destroy_node(hNode)); }

/* ---- clones ---- */
/* A copy of g: every node copied (kernel parameters, child graphs), graph
 * memory shared, edges mapped; each copy remembers its original. */
static CUresult graph_clone(struct sim_graph *g, struct sim_graph **out)
{
    struct sim_graph *c = sim_graph_new();
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->nodes = calloc(g->n + 1, sizeof *c->nodes);
    if (!c->nodes) {
        sim_graph_free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->cap = g->n + 1;
    for (size_t i = 0; i < g->n; i++) {
        struct sim_gnode *src = g->nodes[i], *n = calloc(1, sizeof *n);
        if (!n || node_copy(n, src) != CUDA_SUCCESS) {
            free(n);
            sim_graph_free(c);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        n->graph = c;
        n->clone_of = src;
        if (src->mem) {
            n->mem = src->mem;
            n->mem->refs++;
        }
        c->nodes[c->n++] = n;
        sim_obj_add(n, T_GNODE);
        if (src->child && graph_clone(src->child, &n->child) != CUDA_SUCCESS) {
            sim_graph_free(c);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        for (size_t j = 0; j < src->ndeps; j++) {
            size_t k = 0;
            while (k < i && g->nodes[k] != src->deps[j])
                k++;
            if (k < i && dep_add(n, c->nodes[k]) != 0) {
                sim_graph_free(c);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
        }
    }
    /* edges to later nodes (cuGraphAddDependencies) */
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
            for (size_t k = i; k < g->n; k++)
                if (g->nodes[k] == g->nodes[i]->deps[j] && dep_add(c->nodes[i], c->nodes[k]) != 0) {
                    sim_graph_free(c);
                    return CUDA_ERROR_OUT_OF_MEMORY;
                }
    *out = c;
    return CUDA_SUCCESS;
}
static CUresult clone_graph(CUgraph *out, CUgraph h)
{
    struct sim_graph *g = graph_of(h), *c;
    if (!g || !out)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = graph_clone(g, &c);
    if (r == CUDA_SUCCESS)
        *out = (CUgraph)c;
    return r;
}
CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return LOCKED(clone_graph(phGraphClone, originalGraph)); }

static CUresult find_in_clone(CUgraphNode *out, CUgraphNode orig, CUgraph clone)
{
    struct sim_graph *c = graph_of(clone);
    if (!c || !out)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < c->n; i++)
        if (c->nodes[i]->clone_of == (struct sim_gnode *)orig) {
            *out = (CUgraphNode)c->nodes[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(find_in_clone(phNode, hOriginalNode, hClonedGraph)); }

/* ---- executable graphs ---- */
struct flat { struct sim_gnode *nodes, **orig; size_t n, cap; };

static int flat_push(struct flat *f, struct sim_gnode *src)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        struct sim_gnode *nn = realloc(f->nodes, nc * sizeof *nn);
        if (!nn)
            return -1;
        f->nodes = nn;
        struct sim_gnode **no = realloc(f->orig, nc * sizeof *no);
        if (!no)
            return -1;
        f->orig = no;
        f->cap = nc;
    }
    if (node_copy(&f->nodes[f->n], src) != CUDA_SUCCESS)
        return -1;
    if (src->mem) {     /* the executable graph keeps graph memory alive too */
        f->nodes[f->n].mem = src->mem;
        src->mem->refs++;
    }
    f->orig[f->n++] = src;
    return 0;
}

/* Appends g's nodes in topological order (ready nodes by insertion order),
 * child graphs flattened in place.  -1: out of memory; 1: a cycle. */
static int flatten(struct sim_graph *g, struct flat *f)
{
    unsigned char *done = calloc(g->n + 1, 1);
    if (!done)
        return -1;
    int rc = 0;
    for (size_t emitted = 0; emitted < g->n && rc == 0;) {
        size_t i;
        for (i = 0; i < g->n; i++) {
            if (done[i])
                continue;
            struct sim_gnode *n = g->nodes[i];
            size_t j;
            for (j = 0; j < n->ndeps; j++) {
                size_t k = 0;
                while (k < g->n && g->nodes[k] != n->deps[j])
                    k++;
                if (k < g->n && !done[k])
                    break;
            }
            if (j == n->ndeps)
                break;
        }
        if (i == g->n) {
            rc = 1;
            break;
        }
        done[i] = 1;
        emitted++;
        struct sim_gnode *n = g->nodes[i];
        rc = n->type == CU_GRAPH_NODE_TYPE_GRAPH && n->child ? flatten(n->child, f) : flat_push(f, n);
    }
    free(done);
    return rc;
}

static void flat_free(struct flat *f)
{
    for (size_t i = 0; i < f->n; i++) {
        node_release(&f->nodes[i]);
        gmem_unref(f->nodes[i].mem);
    }
    free(f->nodes);
    free(f->orig);
}

static CUresult instantiate(CUgraphExec *out, CUgraph h, unsigned long long flags)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gexec *x = calloc(1, sizeof *x);
    if (!x)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct flat f = { NULL, NULL, 0, 0 };
    int rc = flatten(g, &f);
    if (rc != 0) {
        flat_free(&f);
        free(x);
        return rc > 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;   /* a cycle */
    }
    x->nodes = f.nodes;
    x->orig = f.orig;
    x->n = f.n;
    x->flags = flags;
    sim_obj_add(x, T_GEXEC);
    *out = (CUgraphExec)x;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    return LOCKED(instantiate(phGraphExec, hGraph, flags));
}
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = 0;
    return LOCKED(instantiate(phGraphExec, hGraph, 0));
}
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = 0;
    return LOCKED(instantiate(phGraphExec, hGraph, 0));
}
static CUresult instantiate_params(CUgraphExec *out, CUgraph h, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = LOCKED(instantiate(out, h, p->flags));
    p->hErrNode_out = NULL;
    p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return r;
}
CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return instantiate_params(phGraphExec, hGraph, p); }
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return instantiate_params(phGraphExec, hGraph, p); }

static CUresult exec_flags(CUgraphExec h, cuuint64_t *flags)
{
    struct sim_gexec *x = sim_obj_get(h, T_GEXEC);
    if (!x || !flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = x->flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(exec_flags(hGraphExec, flags)); }

static CUresult exec_destroy(CUgraphExec h)
{
    struct sim_gexec *x = sim_obj_get(h, T_GEXEC);
    if (!x)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < x->n; i++) {
        node_release(&x->nodes[i]);
        gmem_unref(x->nodes[i].mem);
    }
    free(x->nodes);
    free(x->orig);
    sim_obj_del(x);
    free(x);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(exec_destroy(hGraphExec)); }

/* The executable copy of graph node hn, or NULL. */
static struct sim_gnode *exec_node(CUgraphExec hx, CUgraphNode hn)
{
    struct sim_gexec *x = sim_obj_get(hx, T_GEXEC);
    if (!x)
        return NULL;
    for (size_t i = 0; i < x->n; i++)
        if (x->orig[i] == (struct sim_gnode *)hn)
            return &x->nodes[i];
    return NULL;
}

static CUresult exec_kernel_set(CUgraphExec hx, CUgraphNode hn, const void *f, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **params, void **extra)
{
    struct sim_gnode *n = exec_node(hx, hn);
    return n ? kernel_set(n, f, grid, block, smem, params, extra) : CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    const void *f = p->func ? (const void *)p->func : (const void *)p->kern;
    return LOCKED(exec_kernel_set(hGraphExec, hNode, f, KP_GRID(p), KP_BLOCK(p), p->sharedMemBytes, p->kernelParams, p->extra));
}
CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v1 *p)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return LOCKED(exec_kernel_set(hGraphExec, hNode, p->func, KP_GRID(p), KP_BLOCK(p), p->sharedMemBytes, p->kernelParams, p->extra));
}

static CUresult exec_params(CUgraphExec hx, CUgraphNode hn, CUgraphNodeType t, const void *p)
{
    struct sim_gnode *n = exec_node(hx, hn);
    if (!n || !p || n->type != t)
        return CUDA_ERROR_INVALID_VALUE;
    if (t == CU_GRAPH_NODE_TYPE_MEMCPY)
        n->mc = *(const CUDA_MEMCPY3D *)p;
    else if (t == CU_GRAPH_NODE_TYPE_MEMSET)
        n->ms = *(const CUDA_MEMSET_NODE_PARAMS *)p;
    else if (((const CUDA_HOST_NODE_PARAMS *)p)->fn)
        n->hp = *(const CUDA_HOST_NODE_PARAMS *)p;
    else
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{ ENTER(CUDA_ERROR_INVALID_VALUE); (void)ctx; return LOCKED(exec_params(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMCPY, copyParams)); }
CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{ ENTER(CUDA_ERROR_INVALID_VALUE); (void)ctx; return LOCKED(exec_params(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_MEMSET, memsetParams)); }
CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams)
{ ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(exec_params(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_HOST, nodeParams)); }

/* cuGraphExecUpdate: the graph must have the executable graph's topology
 * (the same node types in the same order); every node's parameters are
 * taken from it, and the executable graph's nodes keep answering to the
 * handles of the graph it was made from. */
static CUresult exec_update(CUgraphExec hx, CUgraph h, CUgraphExecUpdateResult *res, CUgraphNode *err_node)
{
    struct sim_gexec *x = sim_obj_get(hx, T_GEXEC);
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    *res = CU_GRAPH_EXEC_UPDATE_ERROR;
    *err_node = NULL;
    if (!x || !g)
        return CUDA_ERROR_INVALID_VALUE;
    struct flat f = { NULL, NULL, 0, 0 };
    int rc = flatten(g, &f);
    if (rc != 0) {
        flat_free(&f);
        return rc > 0 ? CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE : CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = CUDA_SUCCESS;
    if (f.n != x->n) {
        *res = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
        r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    for (size_t i = 0; r == CUDA_SUCCESS && i < f.n; i++)
        if (f.nodes[i].type != x->nodes[i].type) {
            *res = CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
            *err_node = (CUgraphNode)f.orig[i];
            r = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
        }
    if (r == CUDA_SUCCESS) {
        for (size_t i = 0; i < f.n; i++) {
            struct sim_gnode tmp = x->nodes[i];
            x->nodes[i] = f.nodes[i];
            f.nodes[i] = tmp;           /* released below */
        }
        *res = CU_GRAPH_EXEC_UPDATE_SUCCESS;
    }
    flat_free(&f);
    return r;
}
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out, CUgraphExecUpdateResult *updateResult_out)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUgraphExecUpdateResult res;
    CUgraphNode err;
    CUresult r = LOCKED(exec_update(hGraphExec, hGraph, &res, &err));
    if (hErrorNode_out)
        *hErrorNode_out = err;
    if (updateResult_out)
        *updateResult_out = res;
    return r;
}
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo *resultInfo)
{
    ENTER(CUDA_ERROR_INVALID_VALUE);
    CUgraphExecUpdateResult res;
    CUgraphNode err;
    CUresult r = LOCKED(exec_update(hGraphExec, hGraph, &res, &err));
    if (resultInfo) {
        resultInfo->result = res;
        resultInfo->errorNode = err;
        resultInfo->errorFromNode = NULL;
    }
    return r;
}

/* Runs every node in order in stream hs.  The executable graph is copied
 * under the lock first, so the nodes run without it (twins, host nodes). */
static CUresult graph_launch(CUgraphExec hx, CUstream hs)
{
    sim_lock();
    struct sim_gexec *x = sim_obj_get(hx, T_GEXEC);
    struct sim_ctx *c;
    struct sim_stream *s;
    CUresult r = x ? sim_stream_resolve(hs, &c, &s) : CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        r = sim_ctx_check(c);
    size_t n = 0;
    struct sim_gnode *copy = NULL;
    if (r == CUDA_SUCCESS) {
        n = x->n;
        copy = calloc(n + 1, sizeof *copy);
        if (!copy)
            r = CUDA_ERROR_OUT_OF_MEMORY;
        for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++)
            if (node_copy(&copy[i], &x->nodes[i]) != CUDA_SUCCESS) {
                n = i;
                r = CUDA_ERROR_OUT_OF_MEMORY;
            }
    }
    sim_unlock();
    for (size_t i = 0; r == CUDA_SUCCESS && i < n; i++) {
        struct sim_gnode *nd = &copy[i];
        switch (nd->type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            r = sim_launch(nd->func, nd->grid, nd->block, nd->smem, hs, nd->args, NULL);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            r = sim_memset2d(nd->ms.dst, nd->ms.pitch, nd->ms.value, nd->ms.elementSize, nd->ms.width, nd->ms.height, hs);
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            r = sim_memcpy3d(&nd->mc, hs);
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            nd->hp.fn(nd->hp.userData);
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD: {
            sim_lock();
            struct sim_event *e = sim_obj_get(nd->event, T_EVENT);
            if (e) {
                e->cap_graph = NULL;
                e->recorded = 1;
                e->ms = sim_now_ms();
            }
            sim_unlock();
            break;
        }
        default:        /* empty, event wait, memory allocation and free: nothing to do */
            break;
        }
    }
    for (size_t i = 0; i < n; i++)
        node_release(&copy[i]);
    free(copy);
    return r;
}
CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return graph_launch(hGraphExec, hStream); }
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return graph_launch(hGraphExec, hStream); }

static CUresult graph_upload(CUgraphExec hx, CUstream hs)
{
    struct sim_ctx *c;
    struct sim_stream *s;
    if (!sim_obj_get(hx, T_GEXEC))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = sim_stream_resolve(hs, &c, &s);
    return r != CUDA_SUCCESS ? r : sim_ctx_check(c);
}
CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(graph_upload(hGraphExec, hStream)); }
CUresult CUDAAPI cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(graph_upload(hGraphExec, hStream)); }
