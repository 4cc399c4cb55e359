/* hooks_runtime: every runtime (libcudart) hook: the kernel launches, which
 * the core describes as the interposer's driver launches are (dc_launch_begin
 * _kernel / _stub ... dc_launch_end), and the runtime's ways to driver entry
 * points, cudaGetDriverEntryPoint*, whose answers get our wrappers.  All of
 * them live here because their extra symbol versions (.symver, end of file)
 * must be set in the translation unit that defines them. */
#include "preload/preload.h"

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
