/* hooks_module: where kernel images and kernel handles reach the driver.
 * Each hook passes the call through and, when it succeeded, tells the core
 * which image a module or library holds and which name a function or kernel
 * handle has (core/core.h, dc_image_*): devcheck's own image reader
 * (core/kernel/cubin.c) then knows the parameters of kernels the driver cannot
 * describe (no cuFuncGetParamInfo before driver 12.4; plain `extern "C"`
 * names), and the kernel names a driver before 12.3 cannot give. */
#include "preload/preload.h"

/* The code that called the hook: it loaded an image that lies in no loaded
 * object (a JIT image on the heap, a file), and decides its origin. */
#define CALLER __builtin_return_address(0)

/* One hook: the real call, then `record` when it returned CUDA_SUCCESS. */
#define HOOK(name, params, args, record)                                 \
    DC_EXPORT CUresult CUDAAPI name params                               \
    {                                                                    \
        if (!dc_enter())                                                 \
            return DC_REAL args;                                         \
        CUresult r = DC_REAL args;                                       \
        if (r == CUDA_SUCCESS)                                           \
            record;                                                      \
        dc_leave();                                                      \
        return r;                                                        \
    }

HOOK(cuModuleLoad, (CUmodule *module, const char *fname), (cuModuleLoad, module, fname),
     dc_image_file_loaded(*module, fname, CALLER))
HOOK(cuModuleLoadData, (CUmodule *module, const void *image), (cuModuleLoadData, module, image),
     dc_image_loaded(*module, image, CALLER))
HOOK(cuModuleLoadDataEx,
     (CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues),
     (cuModuleLoadDataEx, module, image, numOptions, options, optionValues), dc_image_loaded(*module, image, CALLER))
HOOK(cuModuleLoadFatBinary, (CUmodule *module, const void *fatCubin), (cuModuleLoadFatBinary, module, fatCubin),
     dc_image_loaded(*module, fatCubin, CALLER))
HOOK(cuLibraryLoadData,
     (CUlibrary *library, const void *code, CUjit_option *jitOptions, void **jitOptionsValues,
      unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues,
      unsigned int numLibraryOptions),
     (cuLibraryLoadData, library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
      libraryOptionValues, numLibraryOptions),
     dc_image_loaded(*library, code, CALLER))
HOOK(cuLibraryLoadFromFile,
     (CUlibrary *library, const char *fileName, CUjit_option *jitOptions, void **jitOptionsValues,
      unsigned int numJitOptions, CUlibraryOption *libraryOptions, void **libraryOptionValues,
      unsigned int numLibraryOptions),
     (cuLibraryLoadFromFile, library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
      libraryOptionValues, numLibraryOptions),
     dc_image_file_loaded(*library, fileName, CALLER))
HOOK(cuModuleGetFunction, (CUfunction *hfunc, CUmodule hmod, const char *name),
     (cuModuleGetFunction, hfunc, hmod, name), dc_image_named(*hfunc, hmod, name))
HOOK(cuLibraryGetKernel, (CUkernel *pKernel, CUlibrary library, const char *name),
     (cuLibraryGetKernel, pKernel, library, name), dc_image_named(*pKernel, library, name))
HOOK(cuLibraryGetModule, (CUmodule *pMod, CUlibrary library), (cuLibraryGetModule, pMod, library),
     dc_image_alias(*pMod, library))
HOOK(cuKernelGetFunction, (CUfunction *pFunc, CUkernel kernel), (cuKernelGetFunction, pFunc, kernel),
     dc_image_alias(*pFunc, kernel))
