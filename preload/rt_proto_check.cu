// Compiled (not linked) by nvcc on every build: preload/rt_proto.h must agree
// with the toolkit's own declarations of the `<<<>>>` launch entry points
// (crt/device_functions.h, visible here because nvcc compiles this as CUDA).
// A mismatch is a hard error: conflicting declaration of a C function.
#include "preload/rt_proto.h"
#include <type_traits>
static_assert(std::is_same<decltype(&__cudaLaunchKernel),
                           cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t)>::value,
              "__cudaLaunchKernel prototype");
static_assert(std::is_same<decltype(&__cudaLaunchKernel_ptsz), decltype(&__cudaLaunchKernel)>::value,
              "__cudaLaunchKernel_ptsz prototype");
