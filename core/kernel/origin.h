/* origin: who made a kernel's image, the first thing that decides how much a
 * word of the kernel can prove.  A user's kernel (the program's own nvcc
 * code, an extension, Triton, numba, NVRTC, a cubin it loads) reads what its
 * author passed it; a kernel of NVIDIA's closed libraries (cuBLAS, cuBLASLt,
 * cuDNN, cuFFT, cuSOLVER, cuSPARSE, cuRAND, NCCL) is handed pointers it may
 * never read (alpha/beta in host pointer mode, by-value scalars passed as
 * host pointers, unused slots: ../shared/traces, report/FORMAT.md), and a
 * framework's own kernels (libtorch_cuda, XLA's stream_executor kernels,
 * CuPy's built-ins) read pinned host flags by design.
 *
 * An origin is decided from the object that holds or loaded the image (a
 * loaded file's path, e.g. ".../nvidia/cu13/lib/libcublasLt.so.13"), or from
 * a label naming it (origins.tsv of a recorded trace: "libcudnn
 * (libcudnn_*.so.9)", "NVRTC (CuPy)", "the program (nvcc)").  Pure
 * functions: no state, no CUDA, no allocation. */
#ifndef DEVCHECK_CORE_ORIGIN_H
#define DEVCHECK_CORE_ORIGIN_H

#pragma GCC visibility push(hidden)

enum dc_origin {
    DC_ORIGIN_UNKNOWN = 0,      /* nothing said: judged as the program's (the strict rules) */
    DC_ORIGIN_PROGRAM,          /* the program or a library of its own built by nvcc (an extension) */
    DC_ORIGIN_JIT,              /* compiled while the program runs: NVRTC, Triton, numba, a cubin it loads */
    DC_ORIGIN_FRAMEWORK,        /* a framework's own kernels: PyTorch, XLA/JAX, TensorFlow, CuPy */
    DC_ORIGIN_LIBRARY,          /* NVIDIA's closed libraries */
    DC_ORIGIN_COUNT
};

/* "unknown", "program", "jit", "framework", "library" (JSON, text). */
const char *dc_origin_name(int origin);
/* The origin a name from dc_origin_name stands for; -1 for any other. */
int dc_origin_parse(const char *name);
/* The origin of an object by its path or file name, or of a label that
 * names one (case-sensitive prefixes of the file name, then of the label's
 * first word); DC_ORIGIN_UNKNOWN when nothing matches (NULL too). */
int dc_origin_of_object(const char *path_or_label);

#pragma GCC visibility pop
#endif
