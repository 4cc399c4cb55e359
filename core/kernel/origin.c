/* origin: who made a kernel's image (see origin.h). */
#include "core/kernel/origin.h"

#include <string.h>

const char *dc_origin_name(int origin)
{
    static const char *const names[DC_ORIGIN_COUNT] = {
        [DC_ORIGIN_UNKNOWN] = "unknown",     [DC_ORIGIN_PROGRAM] = "program", [DC_ORIGIN_JIT] = "jit",
        [DC_ORIGIN_FRAMEWORK] = "framework", [DC_ORIGIN_LIBRARY] = "library",
    };
    return origin >= 0 && origin < DC_ORIGIN_COUNT ? names[origin] : "unknown";
}

int dc_origin_parse(const char *name)
{
    for (int o = 0; name && o < DC_ORIGIN_COUNT; o++)
        if (!strcmp(name, dc_origin_name(o)))
            return o;
    return -1;
}

/* File-name prefixes (and label words) of each origin.  NVIDIA's closed
 * libraries by their sonames (the PyPI nvidia-* wheels and the toolkit ship
 * the same names); frameworks by the objects that hold their kernels.  An
 * entry ending in '/' names a directory of a path instead: a package whose
 * objects have generic names (CuPy's cub.cpython-*.so in cupy/cuda/, jaxlib's
 * _jax.so).  CuPy's NVRTC kernels are loaded from cupy_backends/ (not
 * cupy/): JIT, the user's rules. */
static const struct {
    const char *prefix;
    int origin;
} known[] = {
    { "libcublasLt", DC_ORIGIN_LIBRARY },   { "libcublas", DC_ORIGIN_LIBRARY },
    { "libcudnn", DC_ORIGIN_LIBRARY },      { "libcufft", DC_ORIGIN_LIBRARY },
    { "libcusolver", DC_ORIGIN_LIBRARY },   { "libcusparse", DC_ORIGIN_LIBRARY },
    { "libcurand", DC_ORIGIN_LIBRARY },     { "libnccl", DC_ORIGIN_LIBRARY },
    { "libcutensor", DC_ORIGIN_LIBRARY },   { "libnvshmem", DC_ORIGIN_LIBRARY },
    { "libtorch_cuda", DC_ORIGIN_FRAMEWORK }, { "libc10_cuda", DC_ORIGIN_FRAMEWORK },
    { "libtorch", DC_ORIGIN_FRAMEWORK },    { "xla_extension", DC_ORIGIN_FRAMEWORK },
    { "xla_cuda_plugin", DC_ORIGIN_FRAMEWORK }, { "libtensorflow", DC_ORIGIN_FRAMEWORK },
    { "libjax", DC_ORIGIN_FRAMEWORK },      { "cupy", DC_ORIGIN_FRAMEWORK },
    { "NVRTC", DC_ORIGIN_JIT },             { "libnvrtc", DC_ORIGIN_JIT },
    { "Triton", DC_ORIGIN_JIT },            { "triton", DC_ORIGIN_JIT },
    { "numba", DC_ORIGIN_JIT },             { "the program", DC_ORIGIN_PROGRAM },
    { "cupy/", DC_ORIGIN_FRAMEWORK },       { "jaxlib/", DC_ORIGIN_FRAMEWORK },
    { "jax_cuda12_plugin/", DC_ORIGIN_FRAMEWORK }, { "jax_cuda13_plugin/", DC_ORIGIN_FRAMEWORK },
};

/* Does path (up to its file name, base) have the directory dir ("name/")? */
static int has_dir(const char *path, const char *base, const char *dir)
{
    size_t n = strlen(dir);
    for (const char *p = path; p + n <= base; p++)
        if ((p == path || p[-1] == '/') && !strncmp(p, dir, n))
            return 1;
    return 0;
}

int dc_origin_of_object(const char *path)
{
    if (!path)
        return DC_ORIGIN_UNKNOWN;
    /* a label ("libcudnn (libcudnn_*.so.9)") names its object first; a path
     * is judged by its file name */
    const char *end = strchr(path, ' ');
    const char *base = path;
    for (const char *p = path; *p && (!end || p < end); p++)
        if (*p == '/')
            base = p + 1;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        size_t n = strlen(known[i].prefix);
        if (known[i].prefix[n - 1] == '/' ? has_dir(path, base, known[i].prefix)
                                          : !strncmp(base, known[i].prefix, n))
            return known[i].origin;
    }
    return DC_ORIGIN_UNKNOWN;
}
