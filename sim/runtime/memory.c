/* memory.c: allocation, copies, memset, pools, pointer attributes, IPC.
 * Device pointers are CUdeviceptr values (unified addressing); every entry
 * point needs a current context, which rt_ctx provides. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

RT_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    if (!devPtr)
        return rt_ret(cudaErrorInvalidValue);
    *devPtr = NULL;
    RT_TRY(rt_ctx());
    if (size == 0)
        return cudaSuccess;
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CU(cuMemAlloc, &p, size)));
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

RT_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!devPtr || !pitch)
        return rt_ret(cudaErrorInvalidValue);
    *devPtr = NULL;
    RT_TRY(rt_ctx());
    if (width == 0 || height == 0) {
        *pitch = 0;
        return cudaSuccess;
    }
    CUdeviceptr p = 0;
    size_t pt = 0;
    RT_TRY(rt_err(CU(cuMemAllocPitch, &p, &pt, width, height, 4)));
    *devPtr = (void *)(uintptr_t)p;
    *pitch = pt;
    return cudaSuccess;
}

RT_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (!devPtr)
        return rt_ret(cudaErrorInvalidValue);
    *devPtr = NULL;
    RT_TRY(rt_ctx());
    if (size == 0)
        return rt_ret(cudaErrorInvalidValue);
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CU(cuMemAllocManaged, &p, size, flags)));
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

RT_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    if (!pHost)
        return rt_ret(cudaErrorInvalidValue);
    *pHost = NULL;
    RT_TRY(rt_ctx());
    if (size == 0)
        return cudaSuccess;
    /* cudaHostAlloc* flags equal CU_MEMHOSTALLOC_*. */
    return rt_ret(rt_err(CU(cuMemHostAlloc, pHost, size, flags)));
}

RT_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

RT_API cudaError_t cudaFreeHost(void *ptr)
{
    RT_TRY(rt_ctx());
    if (!ptr)
        return cudaSuccess;
    return rt_ret(rt_err(CU(cuMemFreeHost, ptr)));
}

RT_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    if (!ptr || size == 0)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuMemHostRegister, ptr, size, flags)));
}

RT_API cudaError_t cudaHostUnregister(void *ptr)
{
    if (!ptr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuMemHostUnregister, ptr)));
}

RT_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || !pHost)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUdeviceptr d = 0;
    RT_TRY(rt_err(CU(cuMemHostGetDevicePointer, &d, pHost, flags)));
    *pDevice = (void *)(uintptr_t)d;
    return cudaSuccess;
}

RT_API cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    if (!pFlags || !pHost)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuMemHostGetFlags, pFlags, pHost)));
}

RT_API cudaError_t cudaFree(void *devPtr)
{
    RT_TRY(rt_ctx()); /* cudaFree(0) is the idiom that initialises a context */
    if (!devPtr)
        return cudaSuccess;
    return rt_ret(rt_err(CU(cuMemFree, DPTR(devPtr))));
}

/* ---- stream-ordered allocation and pools ------------------------------- */

static cudaError_t malloc_async(int pt, void **devPtr, size_t size, cudaStream_t stream)
{
    if (!devPtr)
        return rt_ret(cudaErrorInvalidValue);
    *devPtr = NULL;
    RT_TRY(rt_ctx());
    if (size == 0)
        return cudaSuccess;
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CUPT(pt, cuMemAllocAsync, &p, size, stream)));
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}
RT_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(0, devPtr, size, hStream);
}
RT_API cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream)
{
    return malloc_async(1, devPtr, size, hStream);
}

static cudaError_t malloc_pool(int pt, void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
    if (!ptr)
        return rt_ret(cudaErrorInvalidValue);
    *ptr = NULL;
    RT_TRY(rt_ctx());
    if (size == 0)
        return cudaSuccess;
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CUPT(pt, cuMemAllocFromPoolAsync, &p, size, pool, stream)));
    *ptr = (void *)(uintptr_t)p;
    return cudaSuccess;
}
RT_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    return malloc_pool(0, ptr, size, memPool, stream);
}
RT_API cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    return malloc_pool(1, ptr, size, memPool, stream);
}

static cudaError_t free_async(int pt, void *devPtr, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (!devPtr)
        return cudaSuccess;
    return rt_ret(rt_err(CUPT(pt, cuMemFreeAsync, DPTR(devPtr), stream)));
}
RT_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) { return free_async(0, devPtr, hStream); }
RT_API cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) { return free_async(1, devPtr, hStream); }

static void to_cu_location(CUmemLocation *out, const struct cudaMemLocation *in)
{
    memset(out, 0, sizeof *out);
    out->type = (CUmemLocationType)in->type;
    out->id = in->id;
}

RT_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    if (!memPool || !poolProps)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = (CUmemAllocationType)poolProps->allocType;
    p.handleTypes = (CUmemAllocationHandleType)poolProps->handleTypes;
    to_cu_location(&p.location, &poolProps->location);
    p.win32SecurityAttributes = poolProps->win32SecurityAttributes;
    p.maxSize = poolProps->maxSize;
    p.usage = poolProps->usage;
    return rt_ret(rt_err(CU(cuMemPoolCreate, memPool, &p)));
}

RT_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolDestroy, memPool)));
}

RT_API cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count)
{
    if (count && !descList)
        return rt_ret(cudaErrorInvalidValue);
    if (count > 4096)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUmemAccessDesc *d = calloc(count ? count : 1, sizeof *d);
    if (!d)
        return rt_ret(cudaErrorMemoryAllocation);
    for (size_t i = 0; i < count; i++) {
        to_cu_location(&d[i].location, &descList[i].location);
        d[i].flags = (CUmemAccess_flags)descList[i].flags;
    }
    cudaError_t e = rt_err(CU(cuMemPoolSetAccess, memPool, d, count));
    free(d);
    return rt_ret(e);
}

RT_API cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                        struct cudaMemLocation *location)
{
    if (!flags || !location)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_init());
    CUmemLocation loc;
    to_cu_location(&loc, location);
    CUmemAccess_flags f = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    RT_TRY(rt_err(CU(cuMemPoolGetAccess, &f, memPool, &loc)));
    *flags = (enum cudaMemAccessFlags)f;
    return cudaSuccess;
}

RT_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolSetAttribute, memPool, (CUmemPool_attribute)attr, value)));
}

RT_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolGetAttribute, memPool, (CUmemPool_attribute)attr, value)));
}

RT_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    RT_TRY(rt_init());
    return rt_ret(rt_err(CU(cuMemPoolTrimTo, memPool, minBytesToKeep)));
}

/* ---- copies ------------------------------------------------------------ */

static int valid_kind(enum cudaMemcpyKind k)
{
    return k >= cudaMemcpyHostToHost && k <= cudaMemcpyDefault;
}

static cudaError_t copy(int pt, int async, void *dst, const void *src, size_t n,
                        enum cudaMemcpyKind kind, cudaStream_t s)
{
    if (!valid_kind(kind))
        return cudaErrorInvalidMemcpyDirection;
    if (n == 0)
        return cudaSuccess;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    CUdeviceptr d = DPTR(dst), sp = DPTR(src);
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return rt_err(async ? CUPT(pt, cuMemcpyHtoDAsync, d, src, n, s) : CUPT(pt, cuMemcpyHtoD, d, src, n));
    case cudaMemcpyDeviceToHost:
        return rt_err(async ? CUPT(pt, cuMemcpyDtoHAsync, dst, sp, n, s) : CUPT(pt, cuMemcpyDtoH, dst, sp, n));
    case cudaMemcpyDeviceToDevice:
        return rt_err(async ? CUPT(pt, cuMemcpyDtoDAsync, d, sp, n, s) : CUPT(pt, cuMemcpyDtoD, d, sp, n));
    default: /* host to host, default: unified addressing decides */
        return rt_err(async ? CUPT(pt, cuMemcpyAsync, d, sp, n, s) : CUPT(pt, cuMemcpy, d, sp, n));
    }
}

static cudaError_t memcpy_impl(int pt, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    RT_TRY(rt_ctx());
    return rt_ret(copy(pt, 0, dst, src, count, kind, NULL));
}
RT_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return memcpy_impl(0, dst, src, count, kind);
}
RT_API cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    return memcpy_impl(1, dst, src, count, kind);
}

static cudaError_t memcpy_async(int pt, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    return rt_ret(copy(pt, 1, dst, src, count, kind, stream));
}
RT_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    return memcpy_async(0, dst, src, count, kind, stream);
}
RT_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                        cudaStream_t stream)
{
    return memcpy_async(1, dst, src, count, kind, stream);
}

static cudaError_t peer(int async, void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                        cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (!rt_valid_device(dstDevice) || !rt_valid_device(srcDevice))
        return rt_ret(cudaErrorInvalidDevice);
    if (count == 0)
        return cudaSuccess;
    CUcontext dc = NULL, sc = NULL;
    RT_TRY(rt_primary(dstDevice, &dc));
    RT_TRY(rt_primary(srcDevice, &sc));
    if (async)
        return rt_ret(rt_err(CU(cuMemcpyPeerAsync, DPTR(dst), dc, DPTR(src), sc, count, stream)));
    return rt_ret(rt_err(CU(cuMemcpyPeer, DPTR(dst), dc, DPTR(src), sc, count)));
}
RT_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    return peer(0, dst, dstDevice, src, srcDevice, count, NULL);
}
RT_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                       cudaStream_t stream)
{
    return peer(1, dst, dstDevice, src, srcDevice, count, stream);
}

static void side(CUmemorytype *type, const void **host, CUdeviceptr *dev, const void *p, int is_device, int unified)
{
    if (unified) {
        *type = CU_MEMORYTYPE_UNIFIED;
        *dev = DPTR(p);
    } else if (is_device) {
        *type = CU_MEMORYTYPE_DEVICE;
        *dev = DPTR(p);
    } else {
        *type = CU_MEMORYTYPE_HOST;
        *host = p;
    }
}

static cudaError_t copy2d(int pt, int async, void *dst, size_t dpitch, const void *src, size_t spitch,
                          size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (!valid_kind(kind))
        return rt_ret(cudaErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (!dst || !src)
        return rt_ret(cudaErrorInvalidValue);
    if (width > dpitch || width > spitch)
        return rt_ret(cudaErrorInvalidPitchValue);
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    int unified = kind == cudaMemcpyDefault || kind == cudaMemcpyHostToHost;
    const void *dummy = NULL;
    side(&m.srcMemoryType, &m.srcHost, &m.srcDevice, src,
         kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice, unified);
    side(&m.dstMemoryType, &dummy, &m.dstDevice, dst,
         kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice, unified);
    if (m.dstMemoryType == CU_MEMORYTYPE_HOST)
        m.dstHost = dst;
    m.srcPitch = spitch;
    m.dstPitch = dpitch;
    m.WidthInBytes = width;
    m.Height = height;
    if (async)
        return rt_ret(rt_err(CUPT(pt, cuMemcpy2DAsync, &m, stream)));
    return rt_ret(rt_err(CUPT(pt, cuMemcpy2DUnaligned, &m)));
}
RT_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, enum cudaMemcpyKind kind)
{
    return copy2d(0, 0, dst, dpitch, src, spitch, width, height, kind, NULL);
}
RT_API cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind)
{
    return copy2d(1, 0, dst, dpitch, src, spitch, width, height, kind, NULL);
}
RT_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy2d(0, 1, dst, dpitch, src, spitch, width, height, kind, stream);
}
RT_API cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                          size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy2d(1, 1, dst, dpitch, src, spitch, width, height, kind, stream);
}

/* ---- 3D: linear (pitched) memory; CUDA arrays are not simulated ---------- */

RT_API cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return rt_ret(cudaErrorInvalidValue);
    memset(pitchedDevPtr, 0, sizeof *pitchedDevPtr);
    if (extent.height && extent.depth > SIZE_MAX / extent.height)
        return rt_ret(cudaErrorInvalidValue);
    void *p = NULL;
    size_t pitch = 0;
    RT_TRY(cudaMallocPitch(&p, &pitch, extent.width, extent.height * extent.depth));
    pitchedDevPtr->ptr = p;
    pitchedDevPtr->pitch = pitch;
    pitchedDevPtr->xsize = extent.width;
    pitchedDevPtr->ysize = extent.height;
    return cudaSuccess;
}

cudaError_t rt_memcpy3d_params(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *m)
{
    if (!p)
        return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray) {
        static int warned;
        rt_warn_once(&warned, "cudaMemcpy3D with CUDA arrays is not simulated: returning cudaErrorNotSupported");
        return cudaErrorNotSupported;
    }
    if (!valid_kind(p->kind))
        return cudaErrorInvalidMemcpyDirection;
    if ((p->extent.width && p->extent.height && p->extent.depth) && (!p->srcPtr.ptr || !p->dstPtr.ptr))
        return cudaErrorInvalidValue;
    memset(m, 0, sizeof *m);
    int unified = p->kind == cudaMemcpyDefault || p->kind == cudaMemcpyHostToHost;
    const void *dst_host = NULL;
    side(&m->srcMemoryType, &m->srcHost, &m->srcDevice, p->srcPtr.ptr,
           p->kind == cudaMemcpyDeviceToHost || p->kind == cudaMemcpyDeviceToDevice, unified);
    side(&m->dstMemoryType, &dst_host, &m->dstDevice, p->dstPtr.ptr,
           p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyDeviceToDevice, unified);
    m->dstHost = (void *)(uintptr_t)dst_host;
    m->srcXInBytes = p->srcPos.x;
    m->srcY = p->srcPos.y;
    m->srcZ = p->srcPos.z;
    m->srcPitch = p->srcPtr.pitch;
    m->srcHeight = p->srcPtr.ysize;
    m->dstXInBytes = p->dstPos.x;
    m->dstY = p->dstPos.y;
    m->dstZ = p->dstPos.z;
    m->dstPitch = p->dstPtr.pitch;
    m->dstHeight = p->dstPtr.ysize;
    m->WidthInBytes = p->extent.width;
    m->Height = p->extent.height;
    m->Depth = p->extent.depth;
    return cudaSuccess;
}

static cudaError_t copy3d(int pt, int async, const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    if (!p)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUDA_MEMCPY3D m;
    RT_TRY(rt_memcpy3d_params(p, &m));
    if (!p->extent.width || !p->extent.height || !p->extent.depth)
        return cudaSuccess;
    if (async)
        return rt_ret(rt_err(CUPT(pt, cuMemcpy3DAsync, &m, stream)));
    return rt_ret(rt_err(CUPT(pt, cuMemcpy3D, &m)));
}

RT_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) { return copy3d(0, 0, p, NULL); }
RT_API cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p) { return copy3d(1, 0, p, NULL); }
RT_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(0, 1, p, stream);
}
RT_API cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(1, 1, p, stream);
}

static cudaError_t set3d(int pt, int async, struct cudaPitchedPtr ptr, int value, struct cudaExtent extent,
                         cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (!extent.width || !extent.height || !extent.depth)
        return cudaSuccess;
    if (!ptr.ptr)
        return rt_ret(cudaErrorInvalidValue);
    if (extent.width > ptr.pitch || extent.height > ptr.ysize)
        return rt_ret(cudaErrorInvalidValue);
    unsigned char v = (unsigned char)value;
    for (size_t z = 0; z < extent.depth; z++) {
        CUdeviceptr slice = DPTR(ptr.ptr) + z * ptr.pitch * ptr.ysize;
        CUresult r = async ? CUPT(pt, cuMemsetD2D8Async, slice, ptr.pitch, v, extent.width, extent.height, stream)
                           : CUPT(pt, cuMemsetD2D8, slice, ptr.pitch, v, extent.width, extent.height);
        if (r != CUDA_SUCCESS)
            return rt_ret(rt_err(r));
    }
    return cudaSuccess;
}
RT_API cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    return set3d(0, 0, pitchedDevPtr, value, extent, NULL);
}
RT_API cudaError_t cudaMemset3D_ptds(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    return set3d(1, 0, pitchedDevPtr, value, extent, NULL);
}
RT_API cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                                     cudaStream_t stream)
{
    return set3d(0, 1, pitchedDevPtr, value, extent, stream);
}
RT_API cudaError_t cudaMemset3DAsync_ptsz(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                                          cudaStream_t stream)
{
    return set3d(1, 1, pitchedDevPtr, value, extent, stream);
}

/* ---- symbols ----------------------------------------------------------- */

static cudaError_t symbol_copy(int pt, int async, int to, void *buf, const void *symbol, size_t count,
                               size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    if (!valid_kind(kind) || kind == cudaMemcpyHostToHost ||
        (to && kind == cudaMemcpyDeviceToHost) || (!to && kind == cudaMemcpyHostToDevice))
        return rt_ret(cudaErrorInvalidMemcpyDirection);
    struct rt_var_info v;
    RT_TRY(rt_symbol(symbol, &v));
    if (offset > v.size || count > v.size - offset)
        return rt_ret(cudaErrorInvalidValue);
    void *dev = (void *)(uintptr_t)(v.addr + offset);
    if (to)
        return rt_ret(copy(pt, async, dev, buf, count, kind, stream));
    return rt_ret(copy(pt, async, buf, dev, count, kind, stream));
}
RT_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind)
{
    return symbol_copy(0, 0, 1, (void *)(uintptr_t)src, symbol, count, offset, kind, NULL);
}
RT_API cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind)
{
    return symbol_copy(1, 0, 1, (void *)(uintptr_t)src, symbol, count, offset, kind, NULL);
}
RT_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                        enum cudaMemcpyKind kind)
{
    return symbol_copy(0, 0, 0, dst, symbol, count, offset, kind, NULL);
}
RT_API cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                             enum cudaMemcpyKind kind)
{
    return symbol_copy(1, 0, 0, dst, symbol, count, offset, kind, NULL);
}
RT_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(0, 1, 1, (void *)(uintptr_t)src, symbol, count, offset, kind, stream);
}
RT_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count, size_t offset,
                                                enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(1, 1, 1, (void *)(uintptr_t)src, symbol, count, offset, kind, stream);
}
RT_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                             enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(0, 1, 0, dst, symbol, count, offset, kind, stream);
}
RT_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return symbol_copy(1, 1, 0, dst, symbol, count, offset, kind, stream);
}

RT_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    if (!devPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    struct rt_var_info v;
    RT_TRY(rt_symbol(symbol, &v));
    *devPtr = (void *)(uintptr_t)v.addr;
    return cudaSuccess;
}

RT_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    if (!size)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    struct rt_var_info v;
    RT_TRY(rt_symbol(symbol, &v));
    *size = v.size;
    return cudaSuccess;
}

/* ---- memset ------------------------------------------------------------ */

static cudaError_t set_impl(int pt, int async, void *p, int value, size_t count, cudaStream_t s)
{
    RT_TRY(rt_ctx());
    if (count == 0)
        return cudaSuccess;
    if (!p)
        return rt_ret(cudaErrorInvalidValue);
    unsigned char v = (unsigned char)value;
    if (async)
        return rt_ret(rt_err(CUPT(pt, cuMemsetD8Async, DPTR(p), v, count, s)));
    return rt_ret(rt_err(CUPT(pt, cuMemsetD8, DPTR(p), v, count)));
}
RT_API cudaError_t cudaMemset(void *devPtr, int value, size_t count) { return set_impl(0, 0, devPtr, value, count, NULL); }
RT_API cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) { return set_impl(1, 0, devPtr, value, count, NULL); }
RT_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return set_impl(0, 1, devPtr, value, count, stream);
}
RT_API cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return set_impl(1, 1, devPtr, value, count, stream);
}

static cudaError_t set2d(int pt, int async, void *p, size_t pitch, int value, size_t w, size_t h, cudaStream_t s)
{
    RT_TRY(rt_ctx());
    if (w == 0 || h == 0)
        return cudaSuccess;
    if (!p)
        return rt_ret(cudaErrorInvalidValue);
    if (w > pitch)
        return rt_ret(cudaErrorInvalidPitchValue);
    unsigned char v = (unsigned char)value;
    if (async)
        return rt_ret(rt_err(CUPT(pt, cuMemsetD2D8Async, DPTR(p), pitch, v, w, h, s)));
    return rt_ret(rt_err(CUPT(pt, cuMemsetD2D8, DPTR(p), pitch, v, w, h)));
}
RT_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set2d(0, 0, devPtr, pitch, value, width, height, NULL);
}
RT_API cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set2d(1, 0, devPtr, pitch, value, width, height, NULL);
}
RT_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                     cudaStream_t stream)
{
    return set2d(0, 1, devPtr, pitch, value, width, height, stream);
}
RT_API cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                          cudaStream_t stream)
{
    return set2d(1, 1, devPtr, pitch, value, width, height, stream);
}

/* ---- information, advice --------------------------------------------- */

RT_API cudaError_t cudaMemGetInfo(size_t *free_, size_t *total)
{
    RT_TRY(rt_ctx());
    size_t f = 0, t = 0;
    RT_TRY(rt_err(CU(cuMemGetInfo, &f, &t)));
    if (free_)
        *free_ = f;
    if (total)
        *total = t;
    return cudaSuccess;
}

RT_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                 struct cudaMemLocation location)
{
    RT_TRY(rt_ctx());
    CUmemLocation loc;
    to_cu_location(&loc, &location);
    return rt_ret(rt_err(CU(cuMemAdvise, DPTR(devPtr), count, (CUmem_advise)advice, loc)));
}

static cudaError_t prefetch(int pt, const void *devPtr, size_t count, struct cudaMemLocation location,
                            unsigned int flags, cudaStream_t stream)
{
    RT_TRY(rt_ctx());
    CUmemLocation loc;
    to_cu_location(&loc, &location);
    return rt_ret(rt_err(CUPT(pt, cuMemPrefetchAsync, DPTR(devPtr), count, loc, flags, stream)));
}
RT_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                        unsigned int flags, cudaStream_t stream)
{
    return prefetch(0, devPtr, count, location, flags, stream);
}
RT_API cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, struct cudaMemLocation location,
                                             unsigned int flags, cudaStream_t stream)
{
    return prefetch(1, devPtr, count, location, flags, stream);
}

/* ---- pointer attributes ------------------------------------------------ */

RT_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    if (!attributes)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    unsigned int memtype = 0;
    int ordinal = -2, managed = 0;
    CUdeviceptr dptr = 0;
    void *hptr = NULL;
    CUpointer_attribute q[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_IS_MANAGED,  CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        CU_POINTER_ATTRIBUTE_HOST_POINTER,
    };
    void *data[] = { &memtype, &ordinal, &managed, &dptr, &hptr };
    CUresult r = CU(cuPointerGetAttributes, 5, q, data, DPTR(ptr));
    if (r != CUDA_SUCCESS) {
        /* Older path: one attribute at a time; an unknown pointer is
         * CUDA_ERROR_INVALID_VALUE there. */
        memtype = 0;
        if (CU(cuPointerGetAttribute, &memtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, DPTR(ptr)) == CUDA_SUCCESS) {
            (void)CU(cuPointerGetAttribute, &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, DPTR(ptr));
            (void)CU(cuPointerGetAttribute, &managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, DPTR(ptr));
            (void)CU(cuPointerGetAttribute, &dptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, DPTR(ptr));
            (void)CU(cuPointerGetAttribute, &hptr, CU_POINTER_ATTRIBUTE_HOST_POINTER, DPTR(ptr));
        } else {
            memtype = 0;
        }
    }
    /* cuda_runtime_api.h / driver_types.h: devicePointer is "the address
     * which may be dereferenced on the current device ... or NULL if no
     * such address exists" (the driver's DEVICE_POINTER: NULL for another
     * device's memory without peer access); hostPointer likewise, and for
     * unregistered memory the pointer itself ("CUDA doesn't check if
     * unregistered memory is allocated"). */
    memset(attributes, 0, sizeof *attributes);
    attributes->devicePointer = (void *)(uintptr_t)dptr;
    attributes->hostPointer = hptr;
    if (managed)
        attributes->type = cudaMemoryTypeManaged;
    else if (memtype == CU_MEMORYTYPE_DEVICE)
        attributes->type = cudaMemoryTypeDevice;
    else if (memtype == CU_MEMORYTYPE_HOST)
        attributes->type = cudaMemoryTypeHost;
    else {
        /* Not a CUDA allocation: success, type unregistered, device -2. */
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = cudaInvalidDeviceId;
        attributes->hostPointer = (void *)(uintptr_t)ptr;
        return cudaSuccess;
    }
    attributes->device = ordinal;
    return cudaSuccess;
}

/* ---- IPC --------------------------------------------------------------- */

_Static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(CUipcMemHandle), "IPC handle sizes differ");

RT_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    if (!handle || !devPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUipcMemHandle h;
    RT_TRY(rt_err(CU(cuIpcGetMemHandle, &h, DPTR(devPtr))));
    memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return cudaSuccess;
}

RT_API cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    if (!devPtr)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUipcMemHandle h;
    memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    CUdeviceptr p = 0;
    RT_TRY(rt_err(CU(cuIpcOpenMemHandle, &p, h, flags)));
    *devPtr = (void *)(uintptr_t)p;
    return cudaSuccess;
}

RT_API cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CU(cuIpcCloseMemHandle, DPTR(devPtr))));
}

_Static_assert(sizeof(cudaIpcEventHandle_t) == sizeof(CUipcEventHandle), "IPC event handle sizes differ");

RT_API cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    if (!handle)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUipcEventHandle h;
    RT_TRY(rt_err(CU(cuIpcGetEventHandle, &h, event)));
    memcpy(handle->reserved, h.reserved, sizeof h.reserved);
    return cudaSuccess;
}

RT_API cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    if (!event)
        return rt_ret(cudaErrorInvalidValue);
    RT_TRY(rt_ctx());
    CUipcEventHandle h;
    memcpy(h.reserved, handle.reserved, sizeof h.reserved);
    return rt_ret(rt_err(CU(cuIpcOpenEventHandle, event, h)));
}

static cudaError_t attach(int pt, cudaStream_t stream, void *devPtr, size_t length, unsigned int flags)
{
    RT_TRY(rt_ctx());
    return rt_ret(rt_err(CUPT(pt, cuStreamAttachMemAsync, stream, DPTR(devPtr), length, flags)));
}
RT_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags)
{
    return attach(0, stream, devPtr, length, flags);
}
RT_API cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                 unsigned int flags)
{
    return attach(1, stream, devPtr, length, flags);
}
