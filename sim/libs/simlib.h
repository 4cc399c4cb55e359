/* What every NVIDIA library of the sim shares (sim/libs/README.md): the
 * driver, reached as NVIDIA's libraries reach it (dlopen("libcuda.so.1"),
 * then cuGetProcAddress_v2 for each entry point: whatever the process put in
 * front of the driver sees their calls), the library's own code image
 * (kernels compiled by nvcc, embedded in the library, loaded with
 * cuLibraryLoadData the first time a kernel is needed) and one-line notes.
 *
 * A library computes by launching its kernels through the sim driver:
 * each kernel's host twin (simcuda_twin_<kernel>, exported by the library)
 * does the work on the host-mapped device memory, so the sim's fault model
 * decides every access exactly as for a program's own kernel, and devcheck
 * and CUPTI see real launches.
 *
 * Linked into each library (hidden symbols: each library has its own copy
 * of the state below).  A library's own sources are compiled with
 * SIMLIB_CFLAGS (-fvisibility=hidden) and include the API's headers between
 * `#pragma GCC visibility push(default)` and `pop`: the functions they
 * define and the other libraries' functions they call keep default
 * visibility (the version script decides what is exported), everything
 * else is hidden. */
#ifndef SIM_LIBS_SIMLIB_H
#define SIM_LIBS_SIMLIB_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define SIMLIB_HIDDEN __attribute__((visibility("hidden")))
#define SIMLIB_EXPORT __attribute__((visibility("default")))

/* The driver entry points the libraries use, each with the version of the
 * ABI they call (cudaTypedefs.h's PFN_<name>_v<version>): cuGetProcAddress
 * is asked for that version, as NVIDIA's runtime asks for each entry point
 * the version it was built against (at 13000, cuCtxGetDevice is the _v2 of
 * two arguments).  A member's name is cuda.h's (a _v2 where cuda.h maps the
 * name to it). */
#define SIMLIB_DRIVER(X)                                                                          \
    X(cuInit, 2000) X(cuGetErrorName, 6000) X(cuDeviceGetCount, 2000)                             \
    X(cuDevicePrimaryCtxRetain, 7000) X(cuCtxGetCurrent, 4000) X(cuCtxSetCurrent, 4000)           \
    X(cuCtxGetDevice, 2000) X(cuCtxSynchronize, 2000) X(cuStreamGetCtx, 9020)                     \
    X(cuStreamSynchronize, 2000) X(cuLibraryLoadData, 12000) X(cuLibraryUnload, 12000)            \
    X(cuLibraryGetKernel, 12000) X(cuLaunchKernel, 4000) X(cuMemAlloc, 3020) X(cuMemFree, 3020)   \
    X(cuMemcpyDtoH, 3020) X(cuMemcpyHtoD, 3020) X(cuMemsetD8, 3020) X(cuPointerGetAttribute, 4000)

#define SIMLIB_DRV_MEMBER(n, v) PFN_##n##_v##v n;
struct simlib_driver {
    SIMLIB_DRIVER(SIMLIB_DRV_MEMBER)
};
#undef SIMLIB_DRV_MEMBER

/* The driver's entry points, valid once simlib_driver() returned 0. */
extern struct simlib_driver simlib_drv SIMLIB_HIDDEN;

/* Binds the driver once (thread-safe).  0 when every entry point was
 * found; otherwise -1, after one line on stderr naming lib and what is
 * missing (no libcuda.so.1, an entry point the driver lacks). */
int simlib_driver(const char *lib) SIMLIB_HIDDEN;

/* A library's code image: `data` is the fatbin that libs.mk embeds from
 * <dir>/<stem>.cu (symbol <stem>_image), loaded once, context-independent
 * (cuLibraryLoadData), the first time one of its kernels is asked for. */
#define SIMLIB_KERNELS 8
struct simlib_image {
    const unsigned char *data;
    const char *lib;                /* the library's soname, for notes */
    pthread_once_t once;
    CUresult status;
    CUlibrary handle;
    /* the kernels got so far, by name (the caller's string): a library
     * gets each kernel's handle once, as NVIDIA's runtime (static in its
     * libraries) keeps a kernel's handle after its first launch (CUDA C++
     * Programming Guide, "Lazy Loading"); a CUkernel is valid in every
     * context while its library is loaded */
    _Atomic(const char *) kname[SIMLIB_KERNELS];
    CUkernel kernel[SIMLIB_KERNELS];
    atomic_uint nkernels;
};
#define SIMLIB_IMAGE_INIT(data, lib) { (data), (lib), PTHREAD_ONCE_INIT, CUDA_SUCCESS, NULL, { 0 }, { 0 }, 0 }

/* The kernel `name` (the image's extern "C" name) of img, in *k: what
 * cuLibraryLoadData / cuLibraryGetKernel returned. */
CUresult simlib_kernel(struct simlib_image *img, const char *name, CUkernel *k) SIMLIB_HIDDEN;

/* Launches kernel `name` of img over `threads` threads (blocks of 256;
 * kernels loop grid-stride, so any count is covered) into `stream` (NULL:
 * the current context's default stream), params as cuLaunchKernel takes
 * them.  A launch into a capturing stream is captured, as any launch. */
CUresult simlib_launch(struct simlib_image *img, const char *name, unsigned long long threads, CUstream stream,
                       void **params) SIMLIB_HIDDEN;

/* The device of the calling thread's current context, making device 0's
 * primary context current when there is none (as NVIDIA's runtime, static
 * in its libraries, does on first use).  -1 when the driver has no device. */
int simlib_current_device(void) SIMLIB_HIDDEN;

/* One line on stderr, once per flag: "simcuda: <lib>: <text>\n".  A
 * single write(2); no allocation beyond the stack. */
void simlib_note_once(atomic_flag *said, const char *lib, const char *text) SIMLIB_HIDDEN;
#endif
