/* rt.h: internals shared by the simulated CUDA runtime's source files.
 *
 * The runtime reaches the driver only through the function pointers in `drv`,
 * filled once (rt_init) from cuGetProcAddress after dlopen("libcuda.so.1"),
 * as NVIDIA's runtime does.  Nothing here is exported: the library is built
 * with -fvisibility=hidden and only RT_API functions (the CUDA runtime API,
 * with the toolkit header's prototypes) are public. */
#ifndef SIM_RT_H
#define SIM_RT_H

#include <stddef.h>
#include <cudaTypedefs.h>          /* cuda.h and PFN_<name>_v<version> types */
#include <cudaProfilerTypedefs.h>  /* PFN_cuProfilerStart/Stop */
/* Declare the legacy and the per-thread (_ptsz/_ptds) runtime entry points
 * side by side, as the runtime itself is built. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda_runtime_api.h>

#define RT_API __attribute__((visibility("default")))

/* The nvcc registration / launch internals.  nvcc declares them only for
 * device-compilation (crt/host_runtime.h, crt/device_functions.h, C++ only);
 * rt_protocheck.cu re-declares these against those headers, so a drift from
 * the toolkit's prototypes fails the build. */
RT_API void **__cudaRegisterFatBinary(void *fatCubin);
RT_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
RT_API void __cudaUnregisterFatBinary(void **fatCubinHandle);
RT_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
RT_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
RT_API char __cudaInitModule(void **fatCubinHandle);
RT_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
RT_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
RT_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
RT_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
RT_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
RT_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream);

/* Driver entry points (drv.def).  p_<name>: legacy; t_<name>: per-thread. */
struct rt_drv {
#define D(n, v) PFN_##n##_v##v p_##n;
#define T(n, v) PFN_##n##_v##v##_ptsz t_##n;
#define S(n, v) PFN_##n##_v##v##_ptds t_##n;
#include "drv.def"
#undef D
#undef T
#undef S
};
extern struct rt_drv rt_drv;

/* Call a driver entry point; a NULL one (driver too old) is never called:
 * it yields CUDA_ERROR_NOT_SUPPORTED and one line on stderr, once. */
#define CU(n, ...) (rt_drv.p_##n ? rt_drv.p_##n(__VA_ARGS__) : rt_drv_missing(#n))
/* The per-thread-default-stream variant when pt, else the legacy one.  (n is
 * only ever pasted or stringized: cuda.h defines cuMemcpyHtoD etc. as macros.) */
#define CUPT(pt, n, ...) \
    ((pt) ? (rt_drv.t_##n ? rt_drv.t_##n(__VA_ARGS__) : rt_drv_missing(#n "_ptsz")) \
          : (rt_drv.p_##n ? rt_drv.p_##n(__VA_ARGS__) : rt_drv_missing(#n)))
CUresult rt_drv_missing(const char *name);

/* Initialise once (any thread, any time, also from a constructor).  Returns
 * the outcome of initialisation, the same on every call:
 * cudaErrorInsufficientDriver without libcuda.so.1, cudaErrorNoDevice
 * without devices. */
cudaError_t rt_init(void);
extern int rt_ndev;                 /* valid after a successful rt_init */
/* fork(): core's locks are held across it (module.c registers the handlers
 * with its own); a child of an initialised process must not reach the
 * driver, whose locks it may have inherited held. */
void rt_fork_prepare(void);
void rt_fork_parent(void);
void rt_fork_child(void);
int rt_forked_child(void);
/* 1 once rt_init has bound the driver (rt_drv may then be read). */
int rt_driver_bound(void);
/* The process's one dlsym(h, "cuGetProcAddress_v2") of libcuda.so.1 (handle
 * h), shared by rt_init and the CUPTI link (callbacks.c); NULL if absent. */
PFN_cuGetProcAddress_v12000 rt_driver_gpa(void *h);
/* module.c: fork handlers registered after the driver's (call after cuInit). */
void rt_fork_handlers_late(void);

/* Make sure the calling thread has a current context: the one it has (set
 * through the driver API or by us), else the primary context of the thread's
 * device (cudaSetDevice, default 0), retained on first use. */
cudaError_t rt_ctx(void);
/* The primary context of device ordinal dev, retained once per process. */
cudaError_t rt_primary(int dev, CUcontext *out);
/* Forget device dev's primary context after cuDevicePrimaryCtxReset. */
void rt_primary_forget(int dev);
CUdevice rt_cudev(int dev);
int rt_ordinal(CUdevice d);         /* -1 if not a device of ours */
cudaError_t rt_current_device(int *dev);
int rt_valid_device(int dev);
void rt_set_thread_device(int dev);

/* CUresult -> cudaError_t, same numbering where the enums share a code. */
cudaError_t rt_err(CUresult r);
/* Record e as the calling thread's last error (unless success or NotReady),
 * return it.  Every API function returns through this. */
cudaError_t rt_ret(cudaError_t e);
void rt_clear_thread_error(void);
/* One line on stderr per distinct message, at most once per call site. */
void rt_warn_once(int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define RT_TRY(expr) \
    do { cudaError_t rt_e_ = (expr); if (rt_e_ != cudaSuccess) return rt_ret(rt_e_); } while (0)

/* module.c: registered host symbols. */
struct rt_var_info { CUdeviceptr addr; size_t size; };
/* Address and size, in the current context, of the __device__ variable whose
 * host shadow is symbol: cudaErrorInvalidSymbol if none is registered. */
cudaError_t rt_symbol(const void *symbol, struct rt_var_info *out);
/* The CUkernel of a registered host stub (loading its fatbin on first use),
 * or a cudaKernel_t handed in directly; cudaErrorInvalidDeviceFunction. */
cudaError_t rt_kernel(const void *func, CUkernel *out);
/* memory.c: a runtime 3D copy as the driver's (arrays: cudaErrorNotSupported). */
cudaError_t rt_memcpy3d_params(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *m);
/* module.c: the host stub a CUkernel was registered for (graph node
 * parameters give it back), or the kernel itself if none. */
const void *rt_kernel_host(CUkernel k);
#endif
