/* hooks_copy: the copy hooks.  Each passes the call through and, when it
 * succeeded, describes the copy to the core (dc_copy_event) for the transfer
 * matrix: its two ends and its size.  A copy devcheck makes itself (mode=
 * migrate) holds the guard and is not counted. */
#include "preload/preload.h"

/* A copy whose ends are classified by address. */
#define COPY_SYNC(name, TD, TS)                                                          \
    DC_EXPORT CUresult CUDAAPI name(TD dst, TS src, size_t n)                            \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, dst, src, n);                                           \
        CUresult r = DC_REAL(name, dst, src, n);                                         \
        if (r == CUDA_SUCCESS)                                                           \
            dc_copy_event((uintptr_t)dst, -1, (uintptr_t)src, -1, n);                    \
        dc_leave();                                                                      \
        return r;                                                                        \
    }

#define COPY_ASYNC(name, TD, TS)                                                         \
    DC_EXPORT CUresult CUDAAPI name(TD dst, TS src, size_t n, CUstream s)                \
    {                                                                                    \
        if (!dc_enter())                                                                 \
            return DC_REAL(name, dst, src, n, s);                                        \
        CUresult r = DC_REAL(name, dst, src, n, s);                                      \
        if (r == CUDA_SUCCESS)                                                           \
            dc_copy_event((uintptr_t)dst, -1, (uintptr_t)src, -1, n);                    \
        dc_leave();                                                                      \
        return r;                                                                        \
    }

COPY_SYNC(cuMemcpy, CUdeviceptr, CUdeviceptr)
COPY_SYNC(cuMemcpyHtoD_v2, CUdeviceptr, const void *)
COPY_SYNC(cuMemcpyDtoH_v2, void *, CUdeviceptr)
COPY_SYNC(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr)
COPY_ASYNC(cuMemcpyAsync, CUdeviceptr, CUdeviceptr)
COPY_ASYNC(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void *)
COPY_ASYNC(cuMemcpyDtoHAsync_v2, void *, CUdeviceptr)
COPY_ASYNC(cuMemcpyDtoDAsync_v2, CUdeviceptr, CUdeviceptr)

/* Peer copies name their contexts: their devices are the ends. */
DC_EXPORT CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n)
{
    if (!dc_enter())
        return DC_REAL(cuMemcpyPeer, dst, dctx, src, sctx, n);
    CUresult r = DC_REAL(cuMemcpyPeer, dst, dctx, src, sctx, n);
    if (r == CUDA_SUCCESS)
        dc_copy_event(dst, dc_ctx_device(dctx), src, dc_ctx_device(sctx), n);
    dc_leave();
    return r;
}

DC_EXPORT CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                                             size_t n, CUstream s)
{
    if (!dc_enter())
        return DC_REAL(cuMemcpyPeerAsync, dst, dctx, src, sctx, n, s);
    CUresult r = DC_REAL(cuMemcpyPeerAsync, dst, dctx, src, sctx, n, s);
    if (r == CUDA_SUCCESS)
        dc_copy_event(dst, dc_ctx_device(dctx), src, dc_ctx_device(sctx), n);
    dc_leave();
    return r;
}

/* A prefetch moves managed memory to a device or to the host. */
DC_EXPORT CUresult CUDAAPI cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags,
                                                 CUstream s)
{
    if (!dc_enter())
        return DC_REAL(cuMemPrefetchAsync_v2, p, n, loc, flags, s);
    CUresult r = DC_REAL(cuMemPrefetchAsync_v2, p, n, loc, flags, s);
    if (r == CUDA_SUCCESS)
        dc_copy_event(0, loc.type == CU_MEM_LOCATION_TYPE_DEVICE ? loc.id : -1, p, -1, n);
    dc_leave();
    return r;
}
