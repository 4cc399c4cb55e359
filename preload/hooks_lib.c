/* hooks_lib: what the library hooks share (preload/hooks_lib.h has the
 * contract, the hooks' shape and the check of the outermost call, inline):
 * their real functions, by version, found by the resolver; the one-line
 * notice of a missing one; the check's per-thread frame.  The hooks
 * themselves are one file per library (hooks_cublas.c, hooks_cublaslt.c,
 * hooks_nccl.c, hooks_cufft.c, hooks_cudnn.c, hooks_cusolver.c). */
#include "preload/hooks_lib.h"

#include <stdio.h>
#include <unistd.h>

/* --- the table ------------------------------------------------------------ */

static const char *const lib_soname[LIB_COUNT] = {
#define DC_LIB(id, soname, version) soname,
#include "preload/hooks_lib.def"
};
static const char *const lib_version[LIB_COUNT] = {
#define DC_LIB(id, soname, version) version,
#include "preload/hooks_lib.def"
};
/* Each entry point's library (enum lib_id). */
static const int fn_lib[FN_COUNT] = {
#define DC_LIBFN(id, name) [FN_##name] = LIB_##id,
#define DC_LIBAUX(id, name) [FN_##name] = LIB_##id,
#include "preload/hooks_lib.def"
};

void *dc_lib_real[2][FN_COUNT];

/* Slot k = v * FN_COUNT + i: entry point i of version v.  Version 1 (the
 * older one) is its own library's definition only.  Version 0 is the
 * library's definition by its SONAME and version; else (a caller bound
 * without a version while only another version of the library is loaded
 * globally) the global scope's default after devcheck -- never fail a call
 * that would succeed without devcheck -- unless that is the older version's
 * own: then NULL, and the hook runs as the older version's (LIB_REAL). */
void *dc_lib_resolve(int k, const char *name)
{
    int v = k / FN_COUNT, lib = fn_lib[k % FN_COUNT];
    const char *old = lib_old[lib];
    if (v)
        return old ? dc_resolve_lib(old, name, old) : NULL;
    void *p = dc_resolve_lib(lib_soname[lib], name, lib_version[lib]);
    if (p)
        return p;
    p = dc_next_symbol(name);
    return p && old && p == dc_resolve_lib(old, name, old) ? NULL : p;
}

void dc_lib_missing(const char *name)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    char line[256];
    int n = snprintf(line, sizeof line,
                     "devcheck: cannot find the real %s in this process; the call returns an error (said once)\n",
                     name);
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}

/* --- the check's frame -------------------------------------------------------- */

__thread int dc_lib_cur __attribute__((tls_model("initial-exec")));
__thread int dc_lib_depth __attribute__((tls_model("initial-exec")));
__thread struct dc_libsync *dc_lib_pending __attribute__((tls_model("initial-exec")));
