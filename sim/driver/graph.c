/* CUDA graphs, the part real multi-GPU code and devcheck's graph hooks need:
 * kernel, memset, memcpy, host and empty nodes, instantiation, launch, and
 * kernel-node parameter updates in graphs and executable graphs.
 *
 * Nodes are kept in insertion order.  A node's dependencies must already be
 * in the graph, so insertion order is a topological order, and a launch runs
 * the nodes one after another in the launch stream (all stream work in the
 * sim completes at submission).  Kernel parameters are copied when a node is
 * added or updated, as the real driver does; an executable graph holds its
 * own copy of every node.  Stream capture is not simulated. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define ENTER(code) do { CUresult e__ = sim_enter(__func__, (code)); if (e__ != CUDA_SUCCESS) return e__; } while (0)
#define LOCKED(expr) __extension__({ sim_lock(); CUresult r__ = (expr); sim_unlock(); r__; })

struct sim_gnode {
    struct sim_obj o;
    struct sim_graph *graph;
    CUgraphNodeType type;
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
};

struct sim_gexec {
    struct sim_obj o;
    struct sim_gnode *nodes;       /* copies, not registered as handles */
    struct sim_gnode **orig;       /* the graph node each copy came from */
    size_t n;
};

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

void sim_graph_capture_set(struct sim_graph *g, unsigned long long id) { g->live_capture = id; }

int sim_graph_capture_live(const struct sim_graph *g, unsigned long long id)
{
    return id && sim_obj_get(g, T_GRAPH) && g->live_capture == id;
}

void sim_graph_free(struct sim_graph *g)
{
    for (size_t i = 0; i < g->n; i++) {
        node_release(g->nodes[i]);
        sim_obj_del(g->nodes[i]);
        free(g->nodes[i]);
    }
    free(g->nodes);
    sim_obj_del(g);
    free(g);
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
    *pn = n;
    return CUDA_SUCCESS;
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
        free(n);
        return r;
    }
    node_commit(out, n);
    return CUDA_SUCCESS;
}

/* ---- stream capture: each captured operation depends on the previous one ---- */
static CUresult capture_node(struct sim_stream *s, CUgraphNodeType type, struct sim_gnode **pn)
{
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
        free(n);
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

/* ---- executable graphs ---- */
static CUresult instantiate(CUgraphExec *out, CUgraph h)
{
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_graph *g = sim_obj_get(h, T_GRAPH);
    if (!g)
        return CUDA_ERROR_INVALID_VALUE;
    struct sim_gexec *x = calloc(1, sizeof *x);
    if (!x)
        return CUDA_ERROR_OUT_OF_MEMORY;
    x->nodes = calloc(g->n + 1, sizeof *x->nodes);
    x->orig = calloc(g->n + 1, sizeof *x->orig);
    if (!x->nodes || !x->orig) {
        free(x->nodes);
        free(x->orig);
        free(x);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < g->n; i++) {
        if (node_copy(&x->nodes[i], g->nodes[i]) != CUDA_SUCCESS) {
            for (size_t j = 0; j < i; j++)
                node_release(&x->nodes[j]);
            free(x->nodes);
            free(x->orig);
            free(x);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        x->orig[i] = g->nodes[i];
    }
    x->n = g->n;
    sim_obj_add(x, T_GEXEC);
    *out = (CUgraphExec)x;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    (void)flags;
    return LOCKED(instantiate(phGraphExec, hGraph));
}
CUresult CUDAAPI cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = 0;
    return LOCKED(instantiate(phGraphExec, hGraph));
}
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode, char *logBuffer, size_t bufferSize)
{
    ENTER(CUDA_ERROR_OUT_OF_MEMORY);
    if (phErrorNode)
        *phErrorNode = NULL;
    if (logBuffer && bufferSize)
        logBuffer[0] = 0;
    return LOCKED(instantiate(phGraphExec, hGraph));
}
static CUresult instantiate_params(CUgraphExec *out, CUgraph h, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = LOCKED(instantiate(out, h));
    p->hErrNode_out = NULL;
    p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return r;
}
CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return instantiate_params(phGraphExec, hGraph, p); }
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS *p) { ENTER(CUDA_ERROR_OUT_OF_MEMORY); return instantiate_params(phGraphExec, hGraph, p); }

static CUresult exec_destroy(CUgraphExec h)
{
    struct sim_gexec *x = sim_obj_get(h, T_GEXEC);
    if (!x)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < x->n; i++)
        node_release(&x->nodes[i]);
    free(x->nodes);
    free(x->orig);
    sim_obj_del(x);
    free(x);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) { ENTER(CUDA_ERROR_INVALID_VALUE); return LOCKED(exec_destroy(hGraphExec)); }

static CUresult exec_kernel_set(CUgraphExec hx, CUgraphNode hn, const void *f, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **params, void **extra)
{
    struct sim_gexec *x = sim_obj_get(hx, T_GEXEC);
    if (!x)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < x->n; i++)
        if (x->orig[i] == (struct sim_gnode *)hn)
            return kernel_set(&x->nodes[i], f, grid, block, smem, params, extra);
    return CUDA_ERROR_INVALID_VALUE;
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
        default:
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
