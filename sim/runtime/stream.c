/* stream.c: streams and events.  cudaStream_t is CUstream and cudaEvent_t is
 * CUevent (the same struct types); the special handles 0, cudaStreamLegacy
 * and cudaStreamPerThread equal the driver's, so they pass straight through.
 * The _ptsz entry points use the driver's per-thread variants, which read the
 * NULL stream as the per-thread default stream. */
#include <stdlib.h>

#include "rt.h"

RT_API cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    if (!pStream)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuStreamCreate, pStream, CU_STREAM_DEFAULT)));
}

RT_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    if (!pStream)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuStreamCreate, pStream, flags)));
}

RT_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    if (!pStream)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuStreamCreateWithPriority, pStream, flags, priority)));
}

RT_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return rt_ret(cudaErrorInvalidResourceHandle);
    return rt_ret(rt_err(CU(cuStreamDestroy, stream)));
}

static cudaError_t sync_impl(int pt, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamSynchronize, stream)));
}
RT_API cudaError_t cudaStreamSynchronize(cudaStream_t stream) { return sync_impl(0, stream); }
RT_API cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) { return sync_impl(1, stream); }

static cudaError_t query_impl(int pt, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamQuery, stream)));
}
RT_API cudaError_t cudaStreamQuery(cudaStream_t stream) { return query_impl(0, stream); }
RT_API cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) { return query_impl(1, stream); }

static cudaError_t wait_impl(int pt, cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamWaitEvent, stream, event, flags)));
}
RT_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return wait_impl(0, stream, event, flags);
}
RT_API cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    return wait_impl(1, stream, event, flags);
}

static cudaError_t getdev_impl(int pt, cudaStream_t stream, int *device)
{
    if (!device)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUdevice d;
    RT_TRY(rt_err(CUPT(pt, cuStreamGetDevice, stream, &d)));
    int o = rt_ordinal(d);
    if (o < 0)
        return rt_ret(cudaErrorInvalidResourceHandle);
    *device = o;
    return cudaSuccess;
}
RT_API cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) { return getdev_impl(0, hStream, device); }
RT_API cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device) { return getdev_impl(1, hStream, device); }

static cudaError_t getprio_impl(int pt, cudaStream_t stream, int *priority)
{
    if (!priority)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamGetPriority, stream, priority)));
}
RT_API cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) { return getprio_impl(0, hStream, priority); }
RT_API cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority) { return getprio_impl(1, hStream, priority); }

static cudaError_t getflags_impl(int pt, cudaStream_t stream, unsigned int *flags)
{
    if (!flags)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamGetFlags, stream, flags)));
}
RT_API cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) { return getflags_impl(0, hStream, flags); }
RT_API cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) { return getflags_impl(1, hStream, flags); }

/* ---- events ------------------------------------------------------------ */

RT_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    if (!event)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuEventCreate, event, CU_EVENT_DEFAULT)));
}

RT_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuEventCreate, event, flags)));
}

static cudaError_t record_impl(int pt, cudaEvent_t event, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuEventRecord, event, stream)));
}
RT_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) { return record_impl(0, event, stream); }
RT_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) { return record_impl(1, event, stream); }

static cudaError_t recordf_impl(int pt, cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuEventRecordWithFlags, event, stream, flags)));
}
RT_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    return recordf_impl(0, event, stream, flags);
}
RT_API cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    return recordf_impl(1, event, stream, flags);
}

RT_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuEventSynchronize, event)));
}

RT_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuEventQuery, event)));
}

RT_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuEventElapsedTime, ms, start, end)));
}

RT_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuEventDestroy, event)));
}

/* ---- host work in stream order, ids, capture state ---------------------- */

static cudaError_t hostfunc_impl(int pt, cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    if (!fn)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuLaunchHostFunc, stream, fn, userData)));
}
RT_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    return hostfunc_impl(0, stream, fn, userData);
}
RT_API cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    return hostfunc_impl(1, stream, fn, userData);
}

/* cudaStreamCallback_t receives a cudaError_t, CUstreamCallback a CUresult:
 * the driver calls this trampoline, which translates and frees its record. */
struct callback { cudaStreamCallback_t fn; void *user; };

static void CUDA_CB callback_trampoline(CUstream stream, CUresult status, void *p)
{
    struct callback c = *(struct callback *)p;
    free(p);
    c.fn(stream, rt_err(status), c.user);
}

static cudaError_t callback_impl(int pt, cudaStream_t stream, cudaStreamCallback_t fn, void *userData,
                                 unsigned int flags)
{
    if (!fn || flags != 0)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    struct callback *c = malloc(sizeof *c);
    if (!c)
        return rt_ret(cudaErrorMemoryAllocation);
    c->fn = fn;
    c->user = userData;
    cudaError_t e = rt_err(CUPT(pt, cuStreamAddCallback, stream, callback_trampoline, c, 0));
    if (e != cudaSuccess)
        free(c);
    return rt_ret(e);
}
RT_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                         unsigned int flags)
{
    return callback_impl(0, stream, callback, userData, flags);
}
RT_API cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                              unsigned int flags)
{
    return callback_impl(1, stream, callback, userData, flags);
}

static cudaError_t getid_impl(int pt, cudaStream_t stream, unsigned long long *id)
{
    if (!id)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamGetId, stream, id)));
}
RT_API cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    return getid_impl(0, hStream, streamId);
}
RT_API cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    return getid_impl(1, hStream, streamId);
}

_Static_assert(sizeof(cudaGraphEdgeData) == sizeof(CUgraphEdgeData), "graph edge layouts differ");

static cudaError_t capture_info(int pt, cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *ndeps)
{
    if (!status)
        return cudaErrorInvalidValue;
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t cid = 0;
    CUresult r = CUPT(pt, cuStreamGetCaptureInfo, stream, &st, &cid, graph, deps,
                      (const CUgraphEdgeData **)edges, ndeps);
    if (r != CUDA_SUCCESS)
        return rt_err(r);
    *status = (enum cudaStreamCaptureStatus)st;
    if (id)
        *id = cid;
    return cudaSuccess;
}

static cudaError_t capture_info_impl(int pt, cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                     unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                     const cudaGraphEdgeData **edges, size_t *ndeps)
{
    RT_TRY(rt_ctx());
    return rt_ret(capture_info(pt, stream, status, id, graph, deps, edges, ndeps));
}
RT_API cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                            unsigned long long *id_out, cudaGraph_t *graph_out,
                                            const cudaGraphNode_t **dependencies_out,
                                            const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    return capture_info_impl(0, stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                             numDependencies_out);
}
RT_API cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus *captureStatus_out,
                                                 unsigned long long *id_out, cudaGraph_t *graph_out,
                                                 const cudaGraphNode_t **dependencies_out,
                                                 const cudaGraphEdgeData **edgeData_out,
                                                 size_t *numDependencies_out)
{
    return capture_info_impl(1, stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                             numDependencies_out);
}

static cudaError_t is_capturing(int pt, cudaStream_t stream, enum cudaStreamCaptureStatus *status)
{
    if (!status)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult r = CUPT(pt, cuStreamIsCapturing, stream, &st);
    if (r == CUDA_ERROR_NOT_SUPPORTED) /* a driver without it: the same answer from the capture info */
        return rt_ret(capture_info(pt, stream, status, NULL, NULL, NULL, NULL, NULL));
    if (r == CUDA_SUCCESS)
        *status = (enum cudaStreamCaptureStatus)st;
    return rt_ret(rt_err(r));
}
RT_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return is_capturing(0, stream, pCaptureStatus);
}
RT_API cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus)
{
    return is_capturing(1, stream, pCaptureStatus);
}

RT_API cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    if (!mode)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUstreamCaptureMode m = (CUstreamCaptureMode)*mode;
    RT_TRY(rt_err(CU(cuThreadExchangeStreamCaptureMode, &m)));
    *mode = (enum cudaStreamCaptureMode)m;
    return cudaSuccess;
}
