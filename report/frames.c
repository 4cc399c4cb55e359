/* frames: see frames.h. */
#include "report/frames.h"
#include "report/pystack.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PyTorch's caching allocator turned off by the program's environment
 * (PYTORCH_NO_CUDA_MEMORY_CACHING=1; the wrapper never sets it): its frames
 * are still there, calling cudaMalloc once per tensor.  (With caching on, a
 * finding names the tensor's block instead when core/owner/blocks.h knows it:
 * then the callers do not ask this.) */
static int torch_caching_off(void)
{
    const char *v = getenv("PYTORCH_NO_CUDA_MEMORY_CACHING");
    return v && *v && strcmp(v, "0") != 0;
}

size_t dc_frames_native(const struct dc_frame *fr, size_t n)
{
    size_t k = 0;
    while (k < n && !fr[k].python)
        k++;
    return k;
}

const struct dc_frame *dc_frames_user(const struct dc_frame *fr, size_t n)
{
    size_t k = dc_frames_native(fr, n);
    if (k >= n)
        return NULL;
    for (size_t i = k; i < n; i++)
        if (dc_py_user_file(fr[i].file))
            return &fr[i];
    return &fr[k];
}

int dc_frames_peer_enabler(const struct dc_finding *f, struct dc_peer_enabler *out)
{
    static struct dc_frame fr[DC_FRAMES_MAX];      /* under the report's lock */
    if (f->kind != DC_F_PEER_ACCESS || !f->peer_stack || !f->alloc_known)
        return -1;
    /* names are matched: the API's own frame (cudaDeviceEnablePeerAccess
     * of a static runtime; a shared one's are dropped, report/symbolize.c)
     * lies in the object of the stack's first frame, its runtime's, so the
     * frames of other objects without DWARF (a torch copy's libtorch_cpu)
     * are left unnamed (issue 38: their tables are not read) */
    size_t n = dc_stack_symbolize_need(f->peer_stack, fr, DC_FRAMES_MAX, DC_SYM_NAMES_LAZY);
    if (n && !fr[0].python)
        n = dc_stack_name_frames(fr, n, NULL, fr[0].module);
    out->api = NULL;
    out->torch = 0;
    for (size_t i = 0; i < n; i++) {
        if (fr[i].python) {
            out->torch |= strstr(fr[i].file, "/torch/") != NULL;
            continue;
        }
        if (!strncmp(fr[i].function, "cudaDeviceEnablePeerAccess", 26) ||
            !strncmp(fr[i].function, "cuCtxEnablePeerAccess", 21))
            out->api = fr[i].function;          /* the outermost: the program's own call */
        out->torch |= strstr(fr[i].module, "libtorch") != NULL || strstr(fr[i].module, "libc10") != NULL;
    }
    out->user = dc_frames_user(fr, n);
    return 0;
}

int dc_frames_segment(const struct dc_frame *fr, size_t n)
{
    static const char *const allocators[] = {
        "CachingAllocator",         /* c10::cuda::CUDACachingAllocator (caching on) */
        "ExpandableSegment",        /* PyTorch's expandable segments (VMM) */
        "BFCAllocator",             /* XLA, TensorFlow */
        "pool_memory_resource",     /* RMM */
        "arena_memory_resource",
    };
    for (size_t i = 0; i < n && !fr[i].python; i++)
        for (size_t j = 0; j < sizeof allocators / sizeof allocators[0]; j++)
            if (strstr(fr[i].function, allocators[j]) && !(j == 0 && torch_caching_off()))
                return 1;
    return 0;
}

static int has_torch_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    return info->dlpi_name && strstr(info->dlpi_name, "/libtorch_cuda.so") != NULL;
}

enum dc_client dc_frames_client(const struct dc_frame *fr, size_t n)
{
    int py = 0, core = 0;
    for (size_t i = 0; i < n; i++) {
        if (!fr[i].python) {
            core |= strstr(fr[i].module, "/cuda/core/") != NULL;  /* cuda.core's Cython launcher */
            continue;
        }
        py = 1;
        const char *f = fr[i].file;
        if (strstr(f, "/numba/") || strstr(f, "/numba_cuda/"))
            return DC_CLIENT_NUMBA;
        if (strstr(f, "/cuda/core/"))
            return DC_CLIENT_CUDA_CORE;
        if (strstr(f, "/torch/") || strstr(f, "/triton/"))
            return DC_CLIENT_TORCH;
    }
    if (core)
        return DC_CLIENT_CUDA_CORE;
    if (py && dl_iterate_phdr(has_torch_cb, NULL))
        return DC_CLIENT_TORCH;
    return py ? DC_CLIENT_PYTHON : DC_CLIENT_C;
}

int dc_numba_param(const char *d, int param, int *arg, const char **field)
{
    const char *p = d ? strchr(d, '(') : NULL;
    if (!p || !strstr(d, "Array<") || param < 0)
        return -1;
    int at = 0;                                 /* the first flattened parameter of argument a */
    for (int a = 0; *p && *p != ')'; a++) {
        p++;
        while (*p == ' ')
            p++;
        int width = 1, ndim = 0;
        if (!strncmp(p, "Array<", 6)) {
            const char *c = strchr(p, ',');     /* Array<dtype, ndim, layout, ...> */
            if (!c || sscanf(c + 1, " %d", &ndim) != 1 || ndim < 0 || ndim > 32)
                return -1;
            width = 5 + 2 * ndim;
        }
        if (param < at + width) {
            static const char *const parts[] = { "meminfo", "parent", "nitems", "itemsize", "data" };
            int k = param - at;
            *arg = a;
            *field = width == 1 ? "" : k < 5 ? parts[k] : k < 5 + ndim ? "shape" : "strides";
            return 0;
        }
        at += width;
        for (int depth = 0; *p && (depth > 0 || (*p != ',' && *p != ')')); p++)   /* to the next argument */
            depth += (*p == '<' || *p == '(') - (*p == '>' || *p == ')');
    }
    return -1;
}

int dc_call_arg(const char *file, int line, const char *name, int arg, char *out, size_t len)
{
    if (!file || !*file || line <= 0 || !name || !*name || arg < 0 || !len)
        return -1;
    FILE *fp = fopen(file, "re");
    if (!fp)
        return -1;
    char text[4096];
    int n = 0, found = 0;
    while (fgets(text, sizeof text, fp))
        if (++n == line) {
            found = 1;
            break;
        }
    fclose(fp);
    if (!found)
        return -1;
    size_t nl = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        if (p > text && (p[-1] == '_' || p[-1] == '.' || (p[-1] >= 'a' && p[-1] <= 'z') || (p[-1] >= 'A' && p[-1] <= 'Z')))
            continue;
        const char *q = p + nl;
        if (*q == '[') {                        /* numba's launch configuration */
            int depth = 0;
            for (; *q; q++) {
                depth += (*q == '[') - (*q == ']');
                if (!depth)
                    break;
            }
            if (*q)
                q++;
        }
        if (*q != '(')
            continue;
        q++;
        for (int a = 0; *q;) {                  /* top-level commas split the arguments */
            while (*q == ' ')
                q++;
            const char *start = q;
            int depth = 0;
            for (; *q && (depth > 0 || (*q != ',' && *q != ')')); q++)
                depth += (*q == '(' || *q == '[' || *q == '{') - (*q == ')' || *q == ']' || *q == '}');
            if (a == arg) {
                size_t k = (size_t)(q - start);
                while (k && start[k - 1] == ' ')
                    k--;
                if (!k || k >= len)
                    return -1;
                memcpy(out, start, k);
                out[k] = 0;
                return 0;
            }
            if (*q != ',')
                return -1;
            q++, a++;
        }
        return -1;
    }
    return -1;
}

const struct dc_pyloc *dc_framework_user_frame(const struct dc_finding *f)
{
    for (unsigned i = 0; i < f->npylocs; i++)
        if (dc_py_user_file(f->pylocs[i].file))
            return &f->pylocs[i];
    return f->npylocs ? &f->pylocs[0] : NULL;
}
