/* hooks_runtime: the runtime (libcudart) hooks of the kernel launches, which
 * the core describes as the interposer's driver launches are (dc_launch_begin
 * _kernel / _stub ... dc_launch_end), of the runtime's current device, and
 * of nvcc's registration of fatbins and kernels.  The runtime's ways to
 * driver entry points, cudaGetDriverEntryPoint*, are the door's
 * (preload/door.c).
 *
 * Each hook is one body taking the runtime its caller is bound to (enum
 * dc_rt), inlined into one thin entry per libcudart version node
 * (DC_RT_ENTRIES, preload/export.h): the plain name is
 * name@@libcudart.so.13, and for entry points older toolkits have,
 * rt12_<name> and rt11_<name> become name@libcudart.so.12 and
 * name@libcudart.so.11.0 (.symver, end of file; set in this translation
 * unit, which defines them).  The body forwards to that runtime's own
 * function (DC_REAL_RT, preload/bind.h): a CUDA 12 caller reaches
 * libcudart.so.12, a CUDA 13 caller libcudart.so.13, wherever and however
 * each was loaded. */
#include "preload/preload.h"

#define BODY static inline __attribute__((always_inline)) cudaError_t

#define CUDA_LAUNCH_KERNEL(name)                                                          \
    BODY body_##name(int rt, cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, \
                     size_t sharedMem, cudaStream_t stream)                              \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(rt, name, kernel, gridDim, blockDim, args, sharedMem, stream); \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_kernel(&L, rt, #name, kernel, stream, args);                      \
        cudaError_t r = DC_REAL_RT(rt, name, kernel, gridDim, blockDim, L.args, sharedMem, stream); \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }                                                                                     \
    DC_RT_ENTRIES(name, (cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, \
                      cudaStream_t stream), (kernel, gridDim, blockDim, args, sharedMem, stream))
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel)
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel_ptsz)

#define RT_LAUNCH(name)                                                                   \
    BODY body_##name(int rt, const void *func, dim3 gridDim, dim3 blockDim, void **args,  \
                     size_t sharedMem, cudaStream_t stream)                              \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(rt, name, func, gridDim, blockDim, args, sharedMem, stream); \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_stub(&L, rt, #name, func, stream, args);                          \
        cudaError_t r = DC_REAL_RT(rt, name, func, gridDim, blockDim, L.args, sharedMem, stream); \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }                                                                                     \
    DC_RT_ENTRIES(name, (const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem, \
                      cudaStream_t stream), (func, gridDim, blockDim, args, sharedMem, stream))
RT_LAUNCH(cudaLaunchKernel)
RT_LAUNCH(cudaLaunchKernel_ptsz)
RT_LAUNCH(cudaLaunchCooperativeKernel)
RT_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

#define RT_LAUNCH_EX(name)                                                                \
    BODY body_##name(int rt, const cudaLaunchConfig_t *config, const void *func, void **args) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(rt, name, config, func, args);                              \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_stub(&L, rt, #name, config ? func : NULL, config ? config->stream : NULL, args); \
        cudaError_t r = DC_REAL_RT(rt, name, config, func, L.args);                       \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }                                                                                     \
    DC_RT_ENTRIES(name, (const cudaLaunchConfig_t *config, const void *func, void **args), (config, func, args))
RT_LAUNCH_EX(cudaLaunchKernelExC)
RT_LAUNCH_EX(cudaLaunchKernelExC_ptsz)

/* --- the runtime's current device ------------------------------------------- *
 * Passed through without the guard (it may be the runtime's first call: its
 * initialisation must reach the driver through devcheck's hooks); afterwards,
 * devcheck or not, the launch path asks the runtime's current device again
 * (core/base/cudacall.h). */
BODY body_cudaSetDevice(int rt, int device)
{
    cudaError_t r = DC_REAL_RT(rt, cudaSetDevice, device);
    dc_ctx_current_changed();
    return r;
}
DC_RT_ENTRIES(cudaSetDevice, (int device), (device))

/* --- nvcc's registration of fatbins and kernels ------------------------------ *
 * Called from constructors, before main and before devcheck starts: they
 * pass straight through to the caller's runtime and describe the fatbin and
 * kernel names to the core (which keeps them for its image reader,
 * core/kernel/images.c) without starting devcheck and without calling CUDA. */

static inline __attribute__((always_inline)) void **body___cudaRegisterFatBinary(int rt, void *fatCubin)
{
    __typeof__(dc_real___cudaRegisterFatBinary[0]) real = DC_RT_REAL(rt, __cudaRegisterFatBinary);
    void **h = real ? real(fatCubin) : NULL;
    if (h && !dc_guard)
        dc_image_fatbin_registered(h, fatCubin);
    return h;
}
DC_RT_ENTRIES_OF(void **, __cudaRegisterFatBinary, (void *fatCubin), (fatCubin))

/* Returns 0 so that each entry is a plain tail of its body. */
static inline __attribute__((always_inline)) int body___cudaRegisterFunction(
    int rt, void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit,
    uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    __typeof__(dc_real___cudaRegisterFunction[0]) real = DC_RT_REAL(rt, __cudaRegisterFunction);
    if (real)
        real(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
    if (!dc_guard)
        dc_image_function_registered(fatCubinHandle, deviceFun);
    return 0;
}

static inline __attribute__((always_inline)) int body___cudaUnregisterFatBinary(int rt, void **fatCubinHandle)
{
    __typeof__(dc_real___cudaUnregisterFatBinary[0]) real = DC_RT_REAL(rt, __cudaUnregisterFatBinary);
    if (!dc_guard)
        dc_image_unloaded(fatCubinHandle);
    if (real)
        real(fatCubinHandle);
    return 0;
}

#define VOID_ENTRIES(name, params, args)                                                  \
    DC_EXPORT void CUDARTAPI name params { (void)body_##name(DC_RT13, DC_UNPAREN args); } \
    __attribute__((used)) static void CUDARTAPI rt12_##name params                        \
    {                                                                                     \
        (void)body_##name(DC_RT12, DC_UNPAREN args);                                      \
    }                                                                                     \
    __attribute__((used)) static void CUDARTAPI rt11_##name params                        \
    {                                                                                     \
        (void)body_##name(DC_RT11, DC_UNPAREN args);                                      \
    }
VOID_ENTRIES(__cudaRegisterFunction,
    (void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName, int thread_limit,
     uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize),
    (fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize))
VOID_ENTRIES(__cudaUnregisterFatBinary, (void **fatCubinHandle), (fatCubinHandle))

/* The symbol versions (see hooks.def; DC_RT_SYMVER, preload/export.h); the
 * door's runtime hooks (DC_RT_DOOR) have theirs in preload/door.c. */
#define DC_RT(name, since) DC_RT_SYMVER(name, since)
#define DC_RT_DOOR(name, since)
#include "preload/hooks.def"
