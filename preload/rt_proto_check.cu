// Compiled (not linked) by nvcc on every build: preload/rt_proto.h must agree
// with the toolkit's own declarations of the `<<<>>>` launch entry points
// (crt/device_functions.h, visible here because nvcc compiles this as CUDA)
// and of the registration calls (crt/host_runtime.h).
// A mismatch is a hard error: conflicting declaration of a C function.
#include "preload/rt_proto.h"
#include <type_traits>
static_assert(std::is_same<decltype(&__cudaLaunchKernel),
                           cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t)>::value,
              "__cudaLaunchKernel prototype");
static_assert(std::is_same<decltype(&__cudaLaunchKernel_ptsz), decltype(&__cudaLaunchKernel)>::value,
              "__cudaLaunchKernel_ptsz prototype");
// host_runtime.h is the header nvcc's generated code includes; it warns
// unless included the way that code does.
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#include <crt/host_runtime.h>
static_assert(std::is_same<decltype(&__cudaRegisterFatBinary), void **(*)(void *)>::value,
              "__cudaRegisterFatBinary prototype");
static_assert(std::is_same<decltype(&__cudaUnregisterFatBinary), void (*)(void **)>::value,
              "__cudaUnregisterFatBinary prototype");
static_assert(std::is_same<decltype(&__cudaRegisterFunction),
                           void (*)(void **, const char *, char *, const char *, int, uint3 *, uint3 *, dim3 *,
                                    dim3 *, int *)>::value,
              "__cudaRegisterFunction prototype");
