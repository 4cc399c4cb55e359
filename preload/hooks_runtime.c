/* hooks_runtime: every runtime (libcudart) hook: the kernel launches, which
 * the core describes as the interposer's driver launches are (dc_launch_begin
 * _kernel / _stub ... dc_launch_end), and the runtime's ways to driver entry
 * points, cudaGetDriverEntryPoint*, whose answers get our wrappers.  All of
 * them live here because their extra symbol versions (.symver, end of file)
 * must be set in the translation unit that defines them. */
#include "preload/preload.h"

#include <dlfcn.h>

#define CUDA_LAUNCH_KERNEL(name)                                                          \
    DC_EXPORT cudaError_t CUDARTAPI name(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, \
                                         void **args, size_t sharedMem, cudaStream_t stream) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, kernel, gridDim, blockDim, args, sharedMem, stream);  \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_kernel(&L, #name, kernel, stream, args);                          \
        cudaError_t r = DC_REAL_RT(name, kernel, gridDim, blockDim, L.args, sharedMem, stream); \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel)
CUDA_LAUNCH_KERNEL(__cudaLaunchKernel_ptsz)

#define RT_LAUNCH(name)                                                                   \
    DC_EXPORT cudaError_t CUDARTAPI name(const void *func, dim3 gridDim, dim3 blockDim,   \
                                         void **args, size_t sharedMem, cudaStream_t stream) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, func, gridDim, blockDim, args, sharedMem, stream);    \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_stub(&L, #name, func, stream, args);                              \
        cudaError_t r = DC_REAL_RT(name, func, gridDim, blockDim, L.args, sharedMem, stream); \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
RT_LAUNCH(cudaLaunchKernel)
RT_LAUNCH(cudaLaunchKernel_ptsz)
RT_LAUNCH(cudaLaunchCooperativeKernel)
RT_LAUNCH(cudaLaunchCooperativeKernel_ptsz)

#define RT_LAUNCH_EX(name)                                                                \
    DC_EXPORT cudaError_t CUDARTAPI name(const cudaLaunchConfig_t *config, const void *func, void **args) \
    {                                                                                     \
        if (!dc_enter())                                                                  \
            return DC_REAL_RT(name, config, func, args);                                  \
        struct dc_launch_state L;                                                         \
        dc_launch_begin_stub(&L, #name, config ? func : NULL, config ? config->stream : NULL, args); \
        cudaError_t r = DC_REAL_RT(name, config, func, L.args);                           \
        dc_launch_end(&L, r == cudaSuccess);                                              \
        dc_leave();                                                                       \
        return r;                                                                         \
    }
RT_LAUNCH_EX(cudaLaunchKernelExC)
RT_LAUNCH_EX(cudaLaunchKernelExC_ptsz)

/* --- runtime entry points to the driver --------------------------------------- */

/* The runtime's way to the driver: the real one runs with the guard held (so
 * our cuGetProcAddress passes through) and we substitute its answer. */
#define ENTRY_POINT_HOOK(name, params, args)                              \
    DC_EXPORT cudaError_t CUDARTAPI name params                           \
    {                                                                     \
        if (!dc_enter())                                                  \
            return DC_REAL_RT args;                                       \
        cudaError_t r = DC_REAL_RT args;                                  \
        if (r == cudaSuccess && funcPtr)                                  \
            *funcPtr = dc_substitute(*funcPtr);                           \
        dc_leave();                                                       \
        return r;                                                         \
    }
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPoint, symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPoint_ptsz,
    (const char *symbol, void **funcPtr, unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPoint_ptsz, symbol, funcPtr, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPointByVersion, symbol, funcPtr, cudaVersion, flags, driverStatus))
ENTRY_POINT_HOOK(cudaGetDriverEntryPointByVersion_ptsz,
    (const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
     enum cudaDriverEntryPointQueryResult *driverStatus),
    (cudaGetDriverEntryPointByVersion_ptsz, symbol, funcPtr, cudaVersion, flags, driverStatus))

/* --- nvcc's registration of fatbins and kernels ------------------------------ *
 * Called from constructors, before main and before devcheck starts: they
 * pass straight through and describe the fatbin and kernel names to the core
 * (which keeps them for its image reader, core/images.c) without starting
 * devcheck and without calling CUDA. */

/* The real registration function: the next definition (RTLD_NEXT), else the
 * one the calling object's own dependencies hold (a libcudart loaded
 * RTLD_LOCAL with a Python extension is invisible to RTLD_NEXT). */
static void *registration_real(void **slot, const char *name, const void *caller)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (p)
        return p;
    p = dc_resolve_rt(name);
    Dl_info info;
    if (!p && caller && dladdr(caller, &info) && info.dli_fname) {
        void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            p = dlsym(h, name);
            dlclose(h);
        }
    }
    if (p)
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    return p;
}
#define REGISTRATION_REAL(name) \
    ((__typeof__(dc_real_##name))registration_real((void **)&dc_real_##name, #name, __builtin_return_address(0)))

DC_EXPORT void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin)
{
    __typeof__(dc_real___cudaRegisterFatBinary) real = REGISTRATION_REAL(__cudaRegisterFatBinary);
    void **h = real ? real(fatCubin) : NULL;
    if (h && !dc_guard)
        dc_image_fatbin_registered(h, fatCubin);
    return h;
}

DC_EXPORT void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                                const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                                                dim3 *bDim, dim3 *gDim, int *wSize)
{
    __typeof__(dc_real___cudaRegisterFunction) real = REGISTRATION_REAL(__cudaRegisterFunction);
    if (real)
        real(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
    if (!dc_guard)
        dc_image_function_registered(fatCubinHandle, deviceFun);
}

DC_EXPORT void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    __typeof__(dc_real___cudaUnregisterFatBinary) real = REGISTRATION_REAL(__cudaUnregisterFatBinary);
    if (!dc_guard)
        dc_image_unloaded(fatCubinHandle);
    if (real)
        real(fatCubinHandle);
}

/* Runtime hooks carry cudart's symbol versions (see hooks.def):
 * name@@libcudart.so.13, and for entry points older toolkits have,
 * name@libcudart.so.12 / name@libcudart.so.11.0 too.  Each version gets its
 * own alias label: ld drops a version-script version from a name that also
 * has a .symver version, so all of them are set here (the plain names are
 * then local, by the version script's `local: *`). */
#define DC_SYMVER_AS(name, tag, version)                                      \
    __asm__(".globl dc_" tag "_" #name "\n"                                 \
            ".set dc_" tag "_" #name ", " #name "\n"                        \
            ".symver dc_" tag "_" #name ", " #name version "\n");
#define DC_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, "v13", "@@libcudart.so.13")
#define DC_SYMVER_DC_CUDA12(name) DC_SYMVER_DC_CUDA13(name) DC_SYMVER_AS(name, "v12", "@libcudart.so.12")
#define DC_SYMVER_DC_CUDA11(name) DC_SYMVER_DC_CUDA12(name) DC_SYMVER_AS(name, "v11", "@libcudart.so.11.0")
#define DC_RT(name, since) DC_SYMVER_##since(name)
#include "preload/hooks.def"
