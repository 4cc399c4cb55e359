/* hooks_nvrtc: the source a program compiles with NVRTC and the code it gets
 * back (hooks.def, DC_NVRTC), for kernels without types (core/kernel/source.h):
 * nvrtcCreateProgram's source is read, nvrtcGetLoweredName's answers kept,
 * the code nvrtcGetCUBIN / nvrtcGetPTX wrote is remembered by its bytes, so
 * the module the program then loads from it has its kernels' parameters
 * typed.  Nothing else changes: every call goes to NVRTC with the caller's
 * arguments and its result is returned as it is; what devcheck cannot
 * record is dropped.
 *
 * Two routes reach these: a program linked with libnvrtc binds to the
 * exports (NVIDIA's libnvrtc versions its symbols: name@@libnvrtc.so.13 here
 * too, and name@libnvrtc.so.12); one that loads it with dlopen and looks the
 * names up (cuda-bindings through cuda-pathfinder, CuPy) gets them from the
 * dlsym door (dc_nvrtc_substitute, preload/door.c), which records the real
 * function it found.  The real function: the recorded one, else the entry's
 * version in the loaded libnvrtc of that version (by SONAME and symbol
 * version: RTLD_LOCAL loads included, preload/resolve.h), else the other
 * version's, else any definition after libdevcheck.so in the global scope
 * (dlvsym(RTLD_NEXT) alone misses a libnvrtc that arrived as the dependency
 * of an object loaded RTLD_LOCAL: every NVRTC call of such a library would
 * fail).  No NVRTC in the process: these are never called and cost
 * nothing. */
#include <nvrtc.h>
#include "core/core.h"
#include "preload/hooks_nvrtc.h"
#include "preload/resolve.h"
#include "preload/export.h"

#include <string.h>

enum {
#define DC_NVRTC(name) H_##name,
#include "preload/hooks.def"
    N_HOOKS
};
static const char *const hook_name[N_HOOKS] = {
#define DC_NVRTC(name) #name,
#include "preload/hooks.def"
};
static void *const wrapper[N_HOOKS] = {
#define DC_NVRTC(name) (void *)name,
#include "preload/hooks.def"
};
/* What the program's dlsym found for each name (the latest), and what the
 * loaded objects gave, per version. */
static void *recorded[N_HOOKS];
enum { V13 = 0, V12, NV };
static const char *const version[NV] = { "libnvrtc.so.13", "libnvrtc.so.12" };
static void *next[N_HOOKS][NV];

static void *real_function(int which, int v)
{
    void *p = __atomic_load_n(&recorded[which], __ATOMIC_ACQUIRE);
    if (p)
        return p;
    p = __atomic_load_n(&next[which][v], __ATOMIC_ACQUIRE);
    if (p)
        return p;
    p = dc_resolve_lib(version[v], hook_name[which], version[v]);
    if (!p)
        p = dc_resolve_lib(version[!v], hook_name[which], version[!v]);
    if (!p)
        p = dc_next_symbol(hook_name[which]);
    if (p == wrapper[which])
        p = NULL;
    __atomic_store_n(&next[which][v], p, __ATOMIC_RELEASE);
    return p;
}

void *dc_nvrtc_substitute(const char *name, void *real)
{
    for (int i = 0; i < N_HOOKS; i++)
        if (!strcmp(name, hook_name[i])) {
            if (!real || real == wrapper[i])
                return NULL;
            __atomic_store_n(&recorded[i], real, __ATOMIC_RELEASE);
            return wrapper[i];
        }
    return NULL;
}

/* Each hook: one body, inlined into an entry per libnvrtc version (the plain
 * name is name@@libnvrtc.so.13; nvrtc12_<name> is name@libnvrtc.so.12). */
#define BODY static inline __attribute__((always_inline)) nvrtcResult
#define ENTRIES(name, params, args)                                                     \
    DC_EXPORT nvrtcResult name params { return body_##name(V13, DC_UNPAREN args); }     \
    __attribute__((used)) static nvrtcResult nvrtc12_##name params                      \
    {                                                                                   \
        return body_##name(V12, DC_UNPAREN args);                                       \
    }
#define REAL(name, v) ((__typeof__(&name))real_function(H_##name, v))

BODY body_nvrtcCreateProgram(int v, nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                             const char *const *headers, const char *const *includeNames)
{
    __typeof__(&nvrtcCreateProgram) real = REAL(nvrtcCreateProgram, v);
    if (!real)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = real(prog, src, name, numHeaders, headers, includeNames);
    if (r == NVRTC_SUCCESS && prog && !dc_guard)
        dc_source_program(*prog, src);
    return r;
}
ENTRIES(nvrtcCreateProgram,
        (nvrtcProgram *prog, const char *src, const char *name, int numHeaders, const char *const *headers,
         const char *const *includeNames),
        (prog, src, name, numHeaders, headers, includeNames))

BODY body_nvrtcDestroyProgram(int v, nvrtcProgram *prog)
{
    __typeof__(&nvrtcDestroyProgram) real = REAL(nvrtcDestroyProgram, v);
    if (!real)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcProgram p = prog ? *prog : NULL;
    nvrtcResult r = real(prog);
    if (r == NVRTC_SUCCESS && p)
        dc_source_destroyed(p);
    return r;
}
ENTRIES(nvrtcDestroyProgram, (nvrtcProgram *prog), (prog))

/* nvrtcGetCUBIN / nvrtcGetPTX: the real `get`, then the code it wrote at
 * out, measured with its size query `size_name` (the same libnvrtc's). */
static nvrtcResult get_code(nvrtcResult (*get)(nvrtcProgram, char *), const char *size_name, nvrtcProgram prog,
                            char *out)
{
    if (!get)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = get(prog, out);
    if (r != NVRTC_SUCCESS || !out || dc_guard)
        return r;
    nvrtcResult (*size_of)(nvrtcProgram, size_t *) =
        (nvrtcResult(*)(nvrtcProgram, size_t *))dc_resolve_near((void *)get, size_name);
    size_t n = 0;
    if (size_of && size_of(prog, &n) == NVRTC_SUCCESS && n)
        dc_source_output(prog, out, n);
    return r;
}

BODY body_nvrtcGetCUBIN(int v, nvrtcProgram prog, char *cubin)
{
    return get_code(REAL(nvrtcGetCUBIN, v), "nvrtcGetCUBINSize", prog, cubin);
}
ENTRIES(nvrtcGetCUBIN, (nvrtcProgram prog, char *cubin), (prog, cubin))

BODY body_nvrtcGetPTX(int v, nvrtcProgram prog, char *ptx)
{
    return get_code(REAL(nvrtcGetPTX, v), "nvrtcGetPTXSize", prog, ptx);
}
ENTRIES(nvrtcGetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx))

BODY body_nvrtcGetLoweredName(int v, nvrtcProgram prog, const char *const name_expression, const char **lowered_name)
{
    __typeof__(&nvrtcGetLoweredName) real = REAL(nvrtcGetLoweredName, v);
    if (!real)
        return NVRTC_ERROR_INTERNAL_ERROR;
    nvrtcResult r = real(prog, name_expression, lowered_name);
    if (r == NVRTC_SUCCESS && lowered_name && *lowered_name && !dc_guard)
        dc_source_lowered(prog, name_expression, *lowered_name);
    return r;
}
ENTRIES(nvrtcGetLoweredName, (nvrtcProgram prog, const char *const name_expression, const char **lowered_name),
        (prog, name_expression, lowered_name))

/* The symbol versions (DC_SYMVER_AS, preload/export.h). */
#define DC_NVRTC(name) DC_SYMVER_AS(name, name, "n13", "@@libnvrtc.so.13") \
    DC_SYMVER_AS(name, nvrtc12_##name, "n12", "@libnvrtc.so.12")
#include "preload/hooks.def"
