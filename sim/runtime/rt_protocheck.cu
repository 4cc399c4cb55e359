// Build-time check, never linked: nvcc's own declarations of the
// registration / launch internals (crt/host_runtime.h, crt/device_functions.h)
// are in scope here, and rt.h declares the same functions as the runtime
// defines them.  Any difference is a "conflicting declaration of C function"
// error, so the runtime cannot drift from the toolkit's prototypes.
#include <cuda_runtime.h>
extern "C" {
#include "rt.h"
}
__global__ void protocheck_kernel(int *p) { *p = 0; }
__device__ int protocheck_var;
__managed__ int protocheck_managed;
void protocheck_launch(int *p) { protocheck_kernel<<<1, 1>>>(p); }
