/* translate: CUPTI's callbacks, translated into the core's events -- the
 * second front end's side that reads what CUPTI delivers.  The subscription
 * itself (which libcupti, enabling, yielding) is cupti/subscribe.c's; this
 * file hands it the callback (on_callback) and registers the front end.
 *
 * Contract:
 *  - It registers itself with the core (DC_FRONTEND, core/core.h); the
 *    start-up starts it once, unless backend=interpose: the tables below are
 *    filled, then cupti/subscribe.c subscribes on_callback.
 *  - Callbacks that arrive while devcheck's guard is held on the thread (in
 *    a hook, or devcheck's own CUDA calls) are ignored: the interposer has
 *    that call.  Others take the guard and describe the call to the core
 *    (core/core.h: dc_mem_*, dc_ctx_*, dc_launch_check*) as the hooks do,
 *    with path DC_PATH_CUPTI: the same memory and context events, the same
 *    launch description (checked only: its parameters are read-only).
 *  - functionParams is only read.
 *
 * Runtime launches: the runtime's launch reaches the driver, and the driver
 * launch callback nested in it (same thread, runtime frame open) is checked
 * once, under the runtime entry point's name and current device.  If no
 * driver launch comes, at the runtime exit a launch with a documented params
 * struct (cudaLaunchKernel*, cudaLaunchCooperativeKernel*,
 * cudaLaunchKernelExC*) is checked from it; one without (__cudaLaunchKernel*)
 * is counted unchecked, never guessed. */
/* cupti.h brings cuda.h, cuda_runtime_api.h and the generated *_params
 * structs (generated_cuda_meta.h, generated_cuda_runtime_api_meta.h). */
#include <cupti.h>
#include "core/core.h"
#include "cupti/cbids.h"
#include "cupti/subscribe.h"

#include <stdint.h>

/* The callbacks devcheck enables: cupti/cbids.h. */

/* --- copies -------------------------------------------------------------------- */

/* A copy that succeeded, for the transfer matrix: 1 when cbid is one. */
static int copy_exit(CUpti_CallbackId cbid, const void *p)
{
#define CP(T, d, s) do { const T *c_ = p; dc_copy_event((uintptr_t)c_->d, -1, (uintptr_t)c_->s, -1, c_->ByteCount); } while (0)
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy: CP(cuMemcpy_params, dst, src); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync: CP(cuMemcpyAsync_params, dst, src); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2: CP(cuMemcpyHtoD_v2_params, dstDevice, srcHost); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2: CP(cuMemcpyDtoH_v2_params, dstHost, srcDevice); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2: CP(cuMemcpyDtoD_v2_params, dstDevice, srcDevice); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2: CP(cuMemcpyHtoDAsync_v2_params, dstDevice, srcHost); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2: CP(cuMemcpyDtoHAsync_v2_params, dstHost, srcDevice); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2: CP(cuMemcpyDtoDAsync_v2_params, dstDevice, srcDevice); return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer: {
        const cuMemcpyPeer_params *c = p;
        dc_copy_event(c->dstDevice, dc_ctx_device(c->dstContext), c->srcDevice, dc_ctx_device(c->srcContext),
                      c->ByteCount);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync: {
        const cuMemcpyPeerAsync_params *c = p;
        dc_copy_event(c->dstDevice, dc_ctx_device(c->dstContext), c->srcDevice, dc_ctx_device(c->srcContext),
                      c->ByteCount);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPrefetchAsync_v2: {
        const cuMemPrefetchAsync_v2_params *c = p;
        dc_copy_event(0, c->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? c->location.id : -1, c->devPtr, -1,
                      c->count);
        return 1;
    }
    default:
        return 0;
    }
#undef CP
}

/* --- per-thread state ---------------------------------------------------------- */

/* The runtime call open on this thread (runtime calls do not nest within a
 * thread, except devcheck's own, which the guard hides). */
struct rt_frame {
    /* the flags side by side: opening or closing a frame stores them at once */
    uint8_t open;
    uint8_t checked;                    /* the launch went through the check */
    uint8_t driver_seen;                /* a driver callback arrived inside it */
    uint8_t freed_had;                  /* a runtime free took `freed` off the registry */
    uint32_t corr;
    CUpti_CallbackId cbid;
    const struct rt_launch *launch;     /* NULL: not a launch */
    uintptr_t free_base;                /* a runtime free's address, settled at its enter; 0: none */
    struct dc_alloc freed;
};
static __thread struct rt_frame rt __attribute__((tls_model("initial-exec")));

/* A driver free between its enter and exit callbacks. */
struct free_frame {
    int open;
    uint32_t corr;
    int had;
    struct dc_alloc saved;
};
static __thread struct free_frame fr __attribute__((tls_model("initial-exec")));

/* --- launches ------------------------------------------------------------------ */

/* rt_launch_index[cbid]: 1 + the index of its entry in rt_launches, 0 for
 * other runtime calls (filled once, before subscribing). */
static uint8_t rt_launch_index[CUPTI_RUNTIME_TRACE_CBID_SIZE];

static const struct rt_launch *rt_launch_of(CUpti_CallbackId cbid)
{
    unsigned i = cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE ? rt_launch_index[cbid] : 0;
    return i ? &rt_launches[i - 1] : NULL;
}

/* quiet_sites[cbid] (driver domain): the sites of a busy call whose handler
 * does nothing but mark the runtime frame: an allocation's or a copy's
 * enter (recorded at the exit), a launch's exit (checked at the enter); and
 * LAUNCH for the driver launches (on_callback's first test).  Filled once,
 * before subscribing; read by on_callback and quick(). */
enum { QUIET_ENTER = 1, QUIET_EXIT = 2, LAUNCH = 4 };
static uint8_t quiet_sites[CUPTI_DRIVER_TRACE_CBID_SIZE];

/* A driver launch (enter): nested in an open runtime launch it is that
 * launch (once, under its name and with the current device); alone it is
 * checked as a driver launch. */
static inline __attribute__((always_inline)) void driver_launch(const CUpti_CallbackData *cb, const char *api,
                                                                CUfunction f, CUstream s, void **args,
                                                                void **extra)
{
    int cur = -1, dev = -1;
    if (rt.open && rt.launch) {
        if (rt.checked)
            return;
        rt.checked = 1;
        api = rt.launch->api;
        cur = cb->context ? dc_ctx_device(cb->context) : dc_current_device();
        if (cur < 0)
            cur = dc_current_device();
        dev = (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) ? cur : -1;
    }
    dc_launch_check(DC_PATH_CUPTI, api, f, DC_KEY_FUNCTION, dev, cur, s, args, extra);
}

/* A driver launch or graph kernel node (enter): 1 when cbid is one.  The
 * launches' parameters are read here, and checked at one call of
 * driver_launch.  Inlined into launch_enter (one frame for a launch's
 * check) and on_driver. */
static inline __attribute__((always_inline)) int on_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    const char *api;
    CUfunction f;
    CUstream s;
    void **args, **extra = NULL;
#define DL(T, name, stream, ex)                                                          \
    do {                                                                                 \
        const T *a_ = p;                                                                 \
        api = name, f = a_->f, s = (stream), args = a_->kernelParams, extra = (ex);      \
    } while (0)
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        DL(cuLaunchKernel_params, "cuLaunchKernel", a_->hStream, a_->extra);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        DL(cuLaunchKernel_ptsz_params, "cuLaunchKernel_ptsz", a_->hStream, a_->extra);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        if (!((const cuLaunchKernelEx_params *)p)->config)
            return 1;
        DL(cuLaunchKernelEx_params, "cuLaunchKernelEx", a_->config->hStream, a_->extra);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        if (!((const cuLaunchKernelEx_ptsz_params *)p)->config)
            return 1;
        DL(cuLaunchKernelEx_ptsz_params, "cuLaunchKernelEx_ptsz", a_->config->hStream, a_->extra);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        DL(cuLaunchCooperativeKernel_params, "cuLaunchCooperativeKernel", a_->hStream, NULL);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        DL(cuLaunchCooperativeKernel_ptsz_params, "cuLaunchCooperativeKernel_ptsz", a_->hStream, NULL);
        break;
#undef DL
    /* graph kernel nodes: checked when created or changed, as the hooks do */
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2:
        dc_launch_check_node(DC_PATH_CUPTI, "cuGraphAddKernelNode",
                             ((const cuGraphAddKernelNode_v2_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphKernelNodeSetParams_v2:
        dc_launch_check_node(DC_PATH_CUPTI, "cuGraphKernelNodeSetParams",
                             ((const cuGraphKernelNodeSetParams_v2_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2:
        dc_launch_check_node(DC_PATH_CUPTI, "cuGraphExecKernelNodeSetParams",
                             ((const cuGraphExecKernelNodeSetParams_v2_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode:
        dc_launch_check_generic_node(DC_PATH_CUPTI, "cuGraphAddNode", ((const cuGraphAddNode_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2:
        dc_launch_check_generic_node(DC_PATH_CUPTI, "cuGraphAddNode", ((const cuGraphAddNode_v2_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetParams:
        dc_launch_check_generic_node(DC_PATH_CUPTI, "cuGraphNodeSetParams",
                                     ((const cuGraphNodeSetParams_params *)p)->nodeParams);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams:
        dc_launch_check_generic_node(DC_PATH_CUPTI, "cuGraphExecNodeSetParams",
                                     ((const cuGraphExecNodeSetParams_params *)p)->nodeParams);
        return 1;
    default:
        return 0;
    }
    driver_launch(cb, api, f, s, args, extra);
    return 1;
}

/* --- memory: the driver's exit callbacks ------------------------------------- */

static void free_enter(const CUpti_CallbackData *cb, uintptr_t base)
{
    fr.open = 1;
    fr.corr = cb->correlationId;
    fr.had = dc_mem_free_begin(base, &fr.saved);
}

static void free_exit(const CUpti_CallbackData *cb, int ok)
{
    if (!fr.open || fr.corr != cb->correlationId)
        return;
    fr.open = 0;
    dc_mem_free_end(fr.had, &fr.saved, ok);
}

/* 1 when cbid frees (or unregisters) memory; *base: the address, read from
 * p (the call's params; NULL: only the answer). */
static int driver_free(CUpti_CallbackId cbid, const void *p, uintptr_t *base)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        *base = p ? ((const cuMemFree_v2_params *)p)->dptr : 0;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
        *base = p ? ((const cuMemFreeAsync_params *)p)->dptr : 0;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        *base = p ? ((const cuMemFreeAsync_ptsz_params *)p)->dptr : 0;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuIpcCloseMemHandle:
        *base = p ? ((const cuIpcCloseMemHandle_params *)p)->dptr : 0;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
        *base = p ? (uintptr_t)((const cuMemFreeHost_params *)p)->p : 0;
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        *base = p ? (uintptr_t)((const cuMemHostUnregister_params *)p)->p : 0;
        return 1;
    default:
        return 0;
    }
}

/* Frees are undone at their exit when they failed; everything else is
 * recorded at the exit of a successful call (nothing at the enter:
 * quiet_sites). */
static void on_driver_mem(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    int enter = cb->callbackSite == CUPTI_API_ENTER;
    int ok = !enter && cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
    uintptr_t base;

    if (driver_free(cbid, p, &base)) {  /* frees: both sites */
        if (enter)
            free_enter(cb, base);
        else
            free_exit(cb, ok);
        return;
    }
    if (!ok) {
        /* as the hooks: an access already enabled (not enabled) is one */
        CUresult r = !enter && cb->functionReturnValue ? *(const CUresult *)cb->functionReturnValue : CUDA_SUCCESS;
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxEnablePeerAccess && r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
            dc_ctx_peer_access(((const cuCtxEnablePeerAccess_params *)p)->peerContext, 1);
        else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxDisablePeerAccess && r == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
            dc_ctx_peer_access(((const cuCtxDisablePeerAccess_params *)p)->peerContext, 0);
        return;
    }

    if (copy_exit(cbid, p))
        return;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const cuMemAlloc_v2_params *a = p;
        if (a->dptr)
            dc_mem_alloc_current(*a->dptr, a->bytesize, DC_MEM_DEVICE, cb->context);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *a = p;
        if (a->dptr && a->pPitch)
            dc_mem_alloc_current(*a->dptr, *a->pPitch * a->Height, DC_MEM_DEVICE, cb->context);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *a = p;
        if (a->dptr)
            dc_mem_alloc_current(*a->dptr, a->bytesize, DC_MEM_MANAGED, cb->context);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: {
        const cuMemAllocAsync_params *a = p;
        if (a->dptr)
            dc_mem_pool_alloc(*a->dptr, a->bytesize, NULL, a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const cuMemAllocAsync_ptsz_params *a = p;
        if (a->dptr)
            dc_mem_pool_alloc(*a->dptr, a->bytesize, NULL, a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync: {
        const cuMemAllocFromPoolAsync_params *a = p;
        if (a->dptr)
            dc_mem_pool_alloc(*a->dptr, a->bytesize, a->pool, a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const cuMemAllocFromPoolAsync_ptsz_params *a = p;
        if (a->dptr)
            dc_mem_pool_alloc(*a->dptr, a->bytesize, a->pool, a->hStream);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *a = p;
        if (a->pp)
            dc_mem_host((uintptr_t)*a->pp, a->bytesize, DC_MEM_HOST_PINNED);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *a = p;
        if (a->pp)
            dc_mem_host((uintptr_t)*a->pp, a->bytesize, DC_MEM_HOST_PINNED);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *a = p;
        dc_mem_host((uintptr_t)a->p, a->bytesize, DC_MEM_HOST_REGISTERED);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuIpcOpenMemHandle_v2: {
        const cuIpcOpenMemHandle_v2_params *a = p;
        if (a->pdptr)
            dc_mem_ipc_open(*a->pdptr, a->Flags);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolImportPointer: {
        const cuMemPoolImportPointer_params *a = p;
        if (a->ptr_out)
            dc_mem_pool_import(*a->ptr_out, a->pool);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemAllocNode: {
        const cuGraphAddMemAllocNode_params *a = p;
        if (a->nodeParams)
            dc_mem_graph_alloc_node(a->nodeParams);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
        const cuMemCreate_params *a = p;
        if (a->handle && a->prop)
            dc_mem_vmm_create(*a->handle, a->prop);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
        dc_mem_vmm_release(((const cuMemRelease_params *)p)->handle);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
        const cuMemMap_params *a = p;
        dc_mem_vmm_map(a->ptr, a->size, a->handle);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
        const cuMemUnmap_params *a = p;
        dc_mem_vmm_unmap((uintptr_t)a->ptr, a->size);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree: {
        const cuMemAddressFree_params *a = p;
        dc_mem_vmm_unmap((uintptr_t)a->ptr, a->size);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess: {
        const cuMemSetAccess_params *a = p;
        dc_mem_vmm_set_access(a->ptr, a->size, a->desc, a->count);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemPoolSetAccess: {
        const cuMemPoolSetAccess_params *a = p;
        dc_mem_pool_access(a->pool, a->map, a->count);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuCtxEnablePeerAccess:
        dc_ctx_peer_access(((const cuCtxEnablePeerAccess_params *)p)->peerContext, 1);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuCtxDisablePeerAccess:
        dc_ctx_peer_access(((const cuCtxDisablePeerAccess_params *)p)->peerContext, 0);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload:
        dc_kernels_unloaded();
        break;
    default:
        break;
    }
}

/* Stream captures, at the exit: a begin that succeeded, any end (the core
 * asks the driver whether the stream still captures).  A _ptsz entry point's
 * NULL stream is the per-thread stream. */
static int on_driver_capture(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    int ok = cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
#define PTSZ(s) ((s) ? (s) : CU_STREAM_PER_THREAD)
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
        if (ok)
            dc_capture_begin(((const cuStreamBeginCapture_params *)p)->hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
        if (ok)
            dc_capture_begin(PTSZ(((const cuStreamBeginCapture_ptsz_params *)p)->hStream),
                             CU_STREAM_CAPTURE_MODE_GLOBAL);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2: {
        const cuStreamBeginCapture_v2_params *a = p;
        if (ok)
            dc_capture_begin(a->hStream, a->mode);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz: {
        const cuStreamBeginCapture_v2_ptsz_params *a = p;
        if (ok)
            dc_capture_begin(PTSZ(a->hStream), a->mode);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph: {
        const cuStreamBeginCaptureToGraph_params *a = p;
        if (ok)
            dc_capture_begin(a->hStream, a->mode);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz: {
        const cuStreamBeginCaptureToGraph_ptsz_params *a = p;
        if (ok)
            dc_capture_begin(PTSZ(a->hStream), a->mode);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
        dc_capture_end(((const cuStreamEndCapture_params *)p)->hStream);
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
        dc_capture_end(PTSZ(((const cuStreamEndCapture_ptsz_params *)p)->hStream));
        return 1;
    default:
        return 0;
    }
#undef PTSZ
}

/* --- kernel images and handles: the driver's exit callbacks ------------------- */

/* 1 when cbid is one of them (recorded at the exit of a successful call). */
static int on_driver_module(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    int ok = cb->callbackSite == CUPTI_API_EXIT && cb->functionReturnValue &&
             *(const CUresult *)cb->functionReturnValue == CUDA_SUCCESS;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoad: {
        const cuModuleLoad_params *a = p;
        if (ok && a->module)
            dc_image_file_loaded(*a->module, a->fname, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData: {
        const cuModuleLoadData_params *a = p;
        if (ok && a->module)
            dc_image_loaded(*a->module, a->image, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx: {
        const cuModuleLoadDataEx_params *a = p;
        if (ok && a->module)
            dc_image_loaded(*a->module, a->image, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary: {
        const cuModuleLoadFatBinary_params *a = p;
        if (ok && a->module)
            dc_image_loaded(*a->module, a->fatCubin, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleUnload:
        if (ok) {
            dc_kernels_unloaded();
            dc_image_unloaded(((const cuModuleUnload_params *)p)->hmod);
        }
        return 1;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadData: {
        const cuLibraryLoadData_params *a = p;
        if (ok && a->library)
            dc_image_loaded(*a->library, a->code, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryLoadFromFile: {
        const cuLibraryLoadFromFile_params *a = p;
        if (ok && a->library)
            dc_image_file_loaded(*a->library, a->fileName, NULL);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleGetFunction: {
        const cuModuleGetFunction_params *a = p;
        if (ok && a->hfunc)
            dc_image_named(*a->hfunc, a->hmod, a->name);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetKernel: {
        const cuLibraryGetKernel_params *a = p;
        if (ok && a->pKernel)
            dc_image_named(*a->pKernel, a->library, a->name);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetModule: {
        const cuLibraryGetModule_params *a = p;
        if (ok && a->pMod)
            dc_image_alias(*a->pMod, a->library);
        return 1;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction: {
        const cuKernelGetFunction_params *a = p;
        if (ok && a->pFunc)
            dc_image_alias(*a->pFunc, a->kernel);
        return 1;
    }
    default:
        return 0;
    }
}

static void on_driver(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (rt.open)
        rt.driver_seen = 1;
    if (!cb->functionParams)
        return;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (on_driver_launch(cbid, cb))
            return;
    } else if (is_driver_launch(cbid)) {
        return;                         /* a launch's exit: nothing to do */
    }
    if (cb->callbackSite == CUPTI_API_EXIT && on_driver_capture(cbid, cb))
        return;
    if (on_driver_module(cbid, cb))
        return;
    on_driver_mem(cbid, cb);
}

/* --- runtime ------------------------------------------------------------------- */

/* 1 when runtime call cbid frees (or unregisters) memory; *base: the
 * address, read from p (the call's params; NULL: only the answer). */
static int runtime_free(CUpti_CallbackId cbid, const void *p, uintptr_t *base)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        *base = p ? (uintptr_t)((const cudaFree_v3020_params *)p)->devPtr : 0;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        *base = p ? (uintptr_t)((const cudaFreeHost_v3020_params *)p)->ptr : 0;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
        *base = p ? (uintptr_t)((const cudaFreeAsync_v11020_params *)p)->devPtr : 0;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        *base = p ? (uintptr_t)((const cudaFreeAsync_ptsz_v11020_params *)p)->devPtr : 0;
        return 1;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        *base = p ? (uintptr_t)((const cudaHostUnregister_v4000_params *)p)->ptr : 0;
        return 1;
    default:
        return 0;
    }
}

/* Closes the frame (the saved allocation is read only while freed_had). */
static inline void rt_reset(void)
{
    rt.open = rt.checked = rt.driver_seen = rt.freed_had = 0;
    rt.corr = 0;
    rt.cbid = 0;
    rt.launch = NULL;
    rt.free_base = 0;
}

/* Opens the frame of runtime call cbid (launch: rt_launch_of(cbid)): every
 * field set but `freed`. */
static inline void rt_open(CUpti_CallbackId cbid, const CUpti_CallbackData *cb, const struct rt_launch *launch)
{
    rt.open = 1;
    rt.checked = rt.driver_seen = rt.freed_had = 0;
    rt.corr = cb->correlationId;
    rt.cbid = cbid;
    rt.launch = launch;
    rt.free_base = 0;
}

static void on_runtime_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    rt_open(cbid, cb, rt_launch_of(cbid));
    /* A free leaves the registry before the real call, as in the hooks: at
     * its exit the address may already be another thread's new allocation
     * (with the interposer on, the driver free inside is not seen here). */
    uintptr_t freed;
    if (runtime_free(cbid, cb->functionParams, &freed) && freed) {
        rt.freed_had = dc_mem_free_begin(freed, &rt.freed);
        rt.free_base = freed;
    }
}

/* A runtime launch no driver launch callback came for. */
static void runtime_launch_fallback(const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    int cur = dc_current_device();
    const char *api = rt.launch->api;
    if (rt.launch->params == 1 && p) {
        /* cudaLaunchKernel_v7000_params and the cooperative and _ptsz
         * variants: the same layout, each read through its own type */
        const void *func = NULL;
        cudaStream_t s = NULL;
        void **args = NULL;
        switch (rt.cbid) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: {
            const cudaLaunchKernel_v7000_params *a = p;
            func = a->func, s = a->stream, args = a->args;
            break;
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
            const cudaLaunchKernel_ptsz_v7000_params *a = p;
            func = a->func, s = a->stream, args = a->args;
            break;
        }
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000: {
            const cudaLaunchCooperativeKernel_v9000_params *a = p;
            func = a->func, s = a->stream, args = a->args;
            break;
        }
        default: {
            const cudaLaunchCooperativeKernel_ptsz_v9000_params *a = p;
            func = a->func, s = a->stream, args = a->args;
            break;
        }
        }
        if (func) {
            dc_launch_check_stub(DC_PATH_CUPTI, dc_cupti_rt, api, func, cur, (CUstream)s, args);
            return;
        }
    } else if (rt.launch->params == 2 && p) {
        const void *func = NULL;
        const cudaLaunchConfig_t *c = NULL;
        void **args = NULL;
        if (rt.cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060) {
            const cudaLaunchKernelExC_v11060_params *a = p;
            func = a->func, c = a->config, args = a->args;
        } else {
            const cudaLaunchKernelExC_ptsz_v11060_params *a = p;
            func = a->func, c = a->config, args = a->args;
        }
        if (func && c) {
            dc_launch_check_stub(DC_PATH_CUPTI, dc_cupti_rt, api, func, cur, (CUstream)c->stream, args);
            return;
        }
    }
    /* no params struct to read (__cudaLaunchKernel): counted unchecked,
     * under the kernel's name when CUPTI gives it */
    const void *key = cb->symbolName ? (const void *)cb->symbolName : (const void *)api;
    dc_launch_check(DC_PATH_CUPTI, api, key, DC_KEY_UNREAD, cur, -1, NULL, NULL, NULL);
}

/* The runtime memory calls reach the driver; only when no driver callback
 * came inside one is it recorded from the runtime's own parameters (an
 * allocation only when the registry does not know its base). */
/* *pp as an address, when the registry does not know it yet; 0 otherwise. */
static uintptr_t new_base(void *const *pp)
{
    uintptr_t b = pp ? (uintptr_t)*pp : 0;
    return b && !dc_mem_known(b) ? b : 0;
}

static void runtime_mem_fallback(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    const void *p = cb->functionParams;
    uintptr_t base;
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
        const cudaMalloc_v3020_params *a = p;
        if ((base = new_base(a->devPtr)))
            dc_mem_alloc_current(base, a->size, DC_MEM_DEVICE, cb->context);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *a = p;
        if ((base = new_base(a->devPtr)))
            dc_mem_alloc_current(base, a->size, DC_MEM_MANAGED, cb->context);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const cudaMallocHost_v3020_params *a = p;
        if ((base = new_base(a->ptr)))
            dc_mem_host(base, a->size, DC_MEM_HOST_PINNED);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const cudaHostAlloc_v3020_params *a = p;
        if ((base = new_base(a->pHost)))
            dc_mem_host(base, a->size, DC_MEM_HOST_PINNED);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020: {
        const cudaMallocAsync_v11020_params *a = p;
        if ((base = new_base(a->devPtr)))
            dc_mem_pool_alloc(base, a->size, NULL, (CUstream)a->hStream);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
        const cudaMallocAsync_ptsz_v11020_params *a = p;
        if ((base = new_base(a->devPtr)))
            dc_mem_pool_alloc(base, a->size, NULL, (CUstream)a->hStream);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const cudaHostRegister_v4000_params *a = p;
        if ((base = (uintptr_t)a->ptr) && !dc_mem_known(base))
            dc_mem_host(base, a->size, DC_MEM_HOST_REGISTERED);
        break;
    }
    /* frees: taken off at the runtime call's enter (on_runtime_enter) */
    default:
        /* cudaMemPoolSetAccess, cudaDevice{En,Dis}ablePeerAccess: the driver
         * call is the only record (cudaMemPool_t and the peer's context are
         * the driver's objects) */
        break;
    }
}

static void on_runtime_exit(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (!rt.open || rt.corr != cb->correlationId)
        return;
    int ok = cb->functionReturnValue && *(const cudaError_t *)cb->functionReturnValue == cudaSuccess;
    dc_mem_free_end(rt.freed_had, &rt.freed, ok);   /* a failed free: the memory is still there */
    if (rt.launch && !rt.checked)
        runtime_launch_fallback(cb);
    else if (!rt.launch && !rt.driver_seen && ok && cb->functionParams)
        runtime_mem_fallback(cbid, cb);
    rt_reset();
}

/* --- resources ------------------------------------------------------------------ */

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *r)
{
    switch (cbid) {
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
        dc_ctx_destroyed(r->context);     /* a primary reset too */
        break;
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
        dc_kernels_unloaded();
        break;
    default:
        break;
    }
}

/* A callback that arrives while devcheck's guard is not held. */
static __attribute__((noinline)) void on_unguarded(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                                   const void *data)
{
    if (!data || !__atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) || !__atomic_load_n(&dc_cupti_subscribed, __ATOMIC_ACQUIRE))
        return;
    dc_guard++;
    switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API:
        if (!__atomic_load_n(&dc_cupti_busy_on, __ATOMIC_RELAXED))
            dc_cupti_want_busy(cbid);
        on_driver(cbid, data);
        break;
    case CUPTI_CB_DOMAIN_RUNTIME_API: {
        const CUpti_CallbackData *cb = data;
        if (cb->callbackSite == CUPTI_API_ENTER)
            on_runtime_enter(cbid, cb);
        else
            on_runtime_exit(cbid, cb);
        break;
    }
    case CUPTI_CB_DOMAIN_RESOURCE:
        on_resource(cbid, data);
        break;
    default:
        break;
    }
    dc_guard--;
}

/* devcheck has started, holds the subscription and sees the busy calls. */
static inline int quick_live(void)
{
    return __atomic_load_n(&dc_ready, __ATOMIC_ACQUIRE) && __atomic_load_n(&dc_cupti_live, __ATOMIC_ACQUIRE);
}

/* The driver free inside a runtime free of the same address (rt.free_base):
 * the runtime's enter took it off already, so its driver enter would find
 * it gone and its exit would have nothing to put back (the runtime's exit
 * does, if the call failed): two deliveries of the four a cudaFree costs,
 * done by quick().  Out of line, so the launches' quick path keeps its
 * size. */
static __attribute__((noinline)) int nested_free(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    uintptr_t base;
    return rt.open && driver_free(cbid, cb->functionParams, &base) && base == rt.free_base && quick_live();
}

/* The unguarded callbacks whose whole handling is the runtime frame, done
 * before on_unguarded's set-up (of a runtime launch's four callbacks only
 * the driver's enter has work; of a cudaMalloc's four only the driver's
 * exit): a runtime call's enter (not a free's), its exit when the driver's
 * callbacks inside did the work (its launch checked, its memory recorded),
 * a busy driver call's quiet site (quiet_sites); and, of a runtime free,
 * the driver free inside it (nested_free) and its exit when the free
 * succeeded.  1 when done; 0 leaves it
 * to on_unguarded, which also takes every call made before devcheck is
 * ready or before a call past the hooks turned the busy callbacks on. */
static inline int quick(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (!cb)
        return 0;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        unsigned site = cb->callbackSite == CUPTI_API_ENTER ? QUIET_ENTER : QUIET_EXIT;
        if (__builtin_expect(cbid >= CUPTI_DRIVER_TRACE_CBID_SIZE || !(quiet_sites[cbid] & site), 0)) {
            if (!rt.free_base || !nested_free(cbid, cb))
                return 0;
        } else if (!quick_live()) {
            return 0;
        }
        if (rt.open)
            rt.driver_seen = 1;         /* as on_driver */
        return 1;
    }
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API)
        return 0;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        uintptr_t unused;               /* every runtime callback enabled is quiet at its enter but a free's */
        if (runtime_free(cbid, NULL, &unused) || !quick_live())
            return 0;                   /* a free: the registry's work (on_runtime_enter) */
        rt_open(cbid, cb, rt_launch_of(cbid));
        return 1;
    }
    if (!rt.open || rt.corr != cb->correlationId)
        return 1;                       /* not this frame's: on_runtime_exit ignores it too */
    if ((rt.launch ? !rt.checked : !rt.driver_seen) || !quick_live())
        return 0;                       /* a fallback to run */
    if (rt.freed_had && !(cb->functionReturnValue && *(const cudaError_t *)cb->functionReturnValue == cudaSuccess))
        return 0;                       /* a failed free: on_runtime_exit puts its entry back */
    rt_reset();
    return 1;
}

/* A driver launch's enter, unguarded, devcheck live: the launch's whole
 * work (its exit and the runtime launch's enter and exit around it only
 * keep the runtime frame: on_callback). */
static __attribute__((noinline)) void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    dc_guard++;
    if (rt.open)
        rt.driver_seen = 1;             /* as on_driver */
    if (cb->functionParams)
        (void)on_driver_launch(cbid, cb);
    dc_guard--;
}

/* Every callback.  With backend=cupti a launch costs four of them (the
 * runtime launch's enter and exit, the driver launch's inside), and only
 * the driver's enter has work: the three others are decided first, in a
 * few instructions each, without a call -- the runtime launch's enter opens
 * the thread's frame, the driver launch's exit has nothing to do (the enter
 * checked the launch and marked the frame), the runtime launch's exit
 * closes a frame whose launch was checked.  Everything else takes quick()
 * or on_unguarded.  Beside the interposer (backend=both) most arrive with
 * the guard held (the interposer, or devcheck itself, has the call): they
 * cost a few instructions more. */
static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)userdata;
    if (__builtin_expect(!dc_guard, 0)) {
        const CUpti_CallbackData *cb = data;
        if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
            if (cb && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && (quiet_sites[cbid] & LAUNCH)) {
                /* launch callbacks come only while the busy ones are on */
                if (cb->callbackSite != CUPTI_API_ENTER)
                    return;
                if (quick_live()) {
                    launch_enter(cbid, cb);
                    return;
                }
            }
        } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb) {
            const struct rt_launch *launch = rt_launch_of(cbid);
            if (launch && cb->callbackSite == CUPTI_API_ENTER) {
                if (quick_live()) {
                    rt_open(cbid, cb, launch);
                    return;
                }
            } else if (launch && rt.open && rt.corr == cb->correlationId && rt.checked) {
                rt.open = 0;            /* a launch frame: no free, nothing else of it read closed */
                return;
            }
        }
        if (!quick(domain, cbid, data))
            on_unguarded(domain, cbid, data);
        return;
    }
    /* A runtime call that got past the interposer's runtime hooks still
     * reaches the driver through the entry points it got from the
     * interposed dlsym / cuGetProcAddress: a launch or memory call the
     * interposer has inside an open runtime frame is that frame's (no
     * fallback at its exit, or the launch is checked twice). */
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API && rt.open) {
        rt.driver_seen = 1;
        if (is_driver_launch(cbid))
            rt.checked = 1;
    }
}

/* --- the front end ----------------------------------------------------------- */

/* The tables of the callbacks' quick paths, filled before any callback. */
static void fill_tables(void)
{
    for (size_t i = 0; i < N_RT_LAUNCHES; i++)
        if (rt_launches[i].cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
            rt_launch_index[rt_launches[i].cbid] = (uint8_t)(i + 1);
    for (size_t i = 0; i < sizeof busy_cbids / sizeof busy_cbids[0]; i++) {
        CUpti_CallbackId c = busy_cbids[i];
        uintptr_t unused;
        if (c < CUPTI_DRIVER_TRACE_CBID_SIZE && !driver_free(c, NULL, &unused))
            quiet_sites[c] = is_driver_launch(c) ? QUIET_EXIT | LAUNCH : QUIET_ENTER;
    }
}

static int start(int beside)
{
    fill_tables();
    return dc_cupti_start(beside, on_callback);
}

DC_FRONTEND(cupti_frontend, "cupti", start, dc_cupti_yield);
