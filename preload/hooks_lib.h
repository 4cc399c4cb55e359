/* hooks_lib: library calls checked at their API (issue 26): the machinery
 * every library's hooks use.  The table is preload/hooks_lib.def, the check
 * core/verdict/libcall.h (through core/core.h); one file per library holds
 * its hooks (hooks_cublas.c, hooks_cublaslt.c, hooks_nccl.c, hooks_cufft.c,
 * hooks_cudnn.c, hooks_cusolver.c), hooks_lib.c their real functions and the
 * check's frame, and the door (preload/door.c) hands them out for dlsym.  A
 * closed library's kernel words prove little (report/FORMAT.md, "What a word
 * proves"); its header says which arguments are device pointers and its
 * handle, stream or communicator which device the call runs on, so the call
 * is checked before it runs -- before any fault, and at capture for a
 * captured call.
 *
 * Binding, as the runtime hooks (preload/resolve.c): each hook is exported
 * under its library's symbol version (cublasSgemm_v2@@libcublas.so.13: a
 * program or framework linked against the library binds to it; NCCL is
 * unversioned), and its real function is that version's definition in the
 * loaded object whose SONAME is the library's (dlopen(RTLD_NOLOAD) finds
 * RTLD_LOCAL loads too), resolved on first use and whenever it was not
 * loaded yet.  dlsym hands the hook out for the library's own definition
 * (the door: JAX/XLA dlopen the libraries RTLD_LOCAL and ask dlsym(handle,
 * name)); a lookup whose scope lacks the library gets NULL, as without
 * devcheck.
 *
 * Two versions: a library with an older major version (DC_LIBOLD: CUDA 12's
 * libcublas.so.12) has each hook twice, as the runtime hooks do
 * (hooks_runtime.c): one body taking the version (lib_v: 0 the table's
 * DC_LIB, 1 its DC_LIBOLD), inlined into the entry exported as
 * name@@libcublas.so.13 and into dc_lib_old_<name>, exported as
 * name@libcublas.so.12.  Each has its own real-function slot, resolved in
 * its own library only: a CUDA 12 caller reaches libcublas.so.12, a CUDA 13
 * caller libcublas.so.13, both loaded or not; dlsym hands out the entry of
 * the version it found.  Handles are each library's own pointers; cuFFT's
 * plans are small integers in both, so a plan's key carries the version.
 *
 * Every hook starts the same way: without its real function it says so
 * once and returns the library's error; the outermost library call of a
 * thread is checked (cuBLAS calls cuBLASLt and cuSOLVER calls cuBLAS
 * through their PLTs, which reach our hooks: dc_lib_depth), with the guard
 * held for the check only -- the library's own launches and allocations
 * inside the real call are seen as before.
 *
 * A library's file defines LIB_THIS (its DC_LIB id) before its hooks: the
 * entries get that library's symbol versions. */
#ifndef DEVCHECK_PRELOAD_HOOKS_LIB_H
#define DEVCHECK_PRELOAD_HOOKS_LIB_H
#include "preload/preload.h"

#include <cublas_api.h>
#include <cublasLt.h>
#include <nccl.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cudnn_graph.h>
#include <cudnn_cnn.h>
#include <cudnn_adv.h>
#include <cusolverDn.h>

#pragma GCC visibility push(hidden)

/* --- the table ------------------------------------------------------------ */

enum lib_id {
#define DC_LIB(id, soname, version) LIB_##id,
#include "preload/hooks_lib.def"
    LIB_COUNT
};
/* The older version's SONAME, which is also its version node; NULL: none.
 * Here, so that REAL() folds it at compile time. */
static const char *const lib_old[LIB_COUNT] = {
#define DC_LIBOLD(id, node) [LIB_##id] = #node,
#include "preload/hooks_lib.def"
};

enum fn_id {
#define DC_LIBFN(id, name) FN_##name,
#define DC_LIBAUX(id, name) FN_##name,
#include "preload/hooks_lib.def"
    FN_COUNT
};
/* Each entry point's library (enum lib_id), by name: FNLIB_<name>. */
enum {
#define DC_LIBFN(id, name) FNLIB_##name = LIB_##id,
#define DC_LIBAUX(id, name) FNLIB_##name = LIB_##id,
#include "preload/hooks_lib.def"
};

/* Each hook's entries (defined with its body, by LIB_ENTRIES), by version:
 * dc_lib_entry_<name>, a hidden alias of the exported <name> (the door
 * takes its address: <name> itself, referenced from another object, would
 * get a local entry in the dynamic symbol table), and dc_lib_old_<name>. */
#define DC_LIBFN(id, name) __typeof__(name) dc_lib_entry_##name, dc_lib_old_##name;
#include "preload/hooks_lib.def"

/* --- real functions (hooks_lib.c) -------------------------------------------- */

/* The real functions, by version (lib_v) and entry point (enum fn_id). */
extern void *dc_lib_real[2][FN_COUNT];
/* Slot k = v * FN_COUNT + i: entry point i (named `name`) of version v,
 * resolved (NULL while its library is not loaded). */
void *dc_lib_resolve(int k, const char *name);
/* Version v's real function of entry point i, resolved on first use. */
#define DC_LIB_REAL_SLOT(v, i, name) DC_LAZY_FN(dc_lib_real[v][i], dc_lib_resolve, (v) * FN_COUNT + (i), name)
/* Version v's own function `name` (typed from its header), or NULL while
 * its library is not loaded. */
#define REAL_V(name, v) ((__typeof__(&name))DC_LIB_REAL_SLOT(v, FN_##name, #name))
/* The version of the outermost library call running on this thread (0
 * outside any): lib_begin sets it.  The checks' own calls (a handle's
 * stream, a descriptor's attributes) are made to the called library's
 * version: REAL(name). */
extern __thread int dc_lib_cur __attribute__((tls_model("initial-exec")));
/* (a library without an older version: 0, folded at compile time) */
#define REAL(name) REAL_V(name, lib_old[FNLIB_##name] ? dc_lib_cur : 0)
/* In a hook's body: `real`, version lib_v's `name`; a version-0 entry
 * reached while only the older version is loaded (a caller bound without a
 * version) becomes the older version's call. */
#define LIB_REAL(name)                                                              \
    __typeof__(&name) real = REAL_V(name, lib_v);                                  \
    if (__builtin_expect(!real, 0) && !lib_v && (real = REAL_V(name, 1)) != NULL)  \
        lib_v = 1

/* No loaded library defines `name`: says so once on stderr. */
void dc_lib_missing(const char *name);

/* --- the check's frame -------------------------------------------------------- */

/* Depth of library calls on this thread: only the outermost is checked. */
extern __thread int dc_lib_depth __attribute__((tls_model("initial-exec")));
/* sync=1: the outermost call to synchronise after the real call. */
extern __thread struct dc_libsync *dc_lib_pending __attribute__((tls_model("initial-exec")));

/* 1: check this call of version lib_v (the guard is then held:
 * lib_checked() when done). */
static inline int lib_begin(int lib_v)
{
    if (dc_lib_depth++)
        return 0;
    dc_lib_cur = lib_v;
    return dc_enter();
}
static inline void lib_checked(void) { dc_leave(); }

/* The check of the outermost call (guard held): its arguments, then what
 * sync=1 needs after it; the kernels it launches are its own
 * (dc_libcall_active) until lib_end.  Inline, as the handle's device below:
 * each library's check makes it its own (cublasSgemm_v2 -35 instructions
 * beside an out-of-line call, bench/libcalls.sh). */
static inline void dc_lib_check(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *a,
                                unsigned n)
{
    dc_check_libcall(api, device, stream, a, n);
    dc_lib_pending = __builtin_expect(dc_opt.sync, 0) ? dc_libcall_sync_begin(api, device, stream, a, n) : NULL;
    dc_libcall_active = 1;
}

/* In a hook's body (always inlined into its entry): the outermost call's
 * key for the copies the library makes inside it (dc_copy_in,
 * core/owner/owner.h): the entry's return address and frame. */
#define LIB_COPY_IN()                                                               \
    (dc_copy_in.ra = (uintptr_t)__builtin_return_address(0), dc_copy_in.cfa = (uintptr_t)__builtin_dwarf_cfa())

/* After the real call (ok: it returned success). */
static inline void lib_end(int ok)
{
    if (--dc_lib_depth)
        return;
    dc_lib_cur = 0;
    dc_copy_in.ra = 0;
    dc_libcall_active = 0;
    struct dc_libsync *r = dc_lib_pending;
    if (__builtin_expect(r != NULL, 0)) {
        dc_lib_pending = NULL;
        int g = dc_enter();
        dc_libcall_sync_end(r, ok && g);
        if (g)
            dc_leave();
    }
}

/* The device the calls of handle h (of kind DC_LIBH_*) run on: its stream s
 * (got: the library's getter answered), else (the default stream) the
 * device current when it was made, else the current one.  *stream: s. */
static inline int dc_lib_handle_device(int kind, uintptr_t h, int got, cudaStream_t s, uintptr_t *stream)
{
    *stream = 0;
    if (got && s) {
        *stream = (uintptr_t)s;
        int d = dc_stream_device((CUstream)s);
        if (d >= 0)
            return d;
    }
    uint64_t v;
    if (dc_libh_get(kind, h, &v))
        return (int)v;
    return dc_current_device();
}

/* --- a hook's shape ------------------------------------------------------------ */

/* A hook's body: body_<name>(lib_v, params...), inlined into its entries. */
#define LIB_BODY(ret, name, params)                                                 \
    static inline __attribute__((always_inline)) ret body_##name(int lib_v, DC_UNPAREN params)
/* Its entries: `name` (the table's version, exported as name@@version; its
 * hidden alias dc_lib_entry_<name>) and dc_lib_old_<name> (name@<DC_LIBOLD's node> where the library has one; a
 * function nobody calls but the door's table where it has none; without
 * attr: CUFFTAPI is a visibility, calling conventions are empty on Linux),
 * with their symbol versions (LIB_SYMVERS). */
#define LIB_ENTRIES(ret, attr, name, params, args)                                  \
    DC_EXPORT ret attr name params { return body_##name(0, DC_UNPAREN args); }      \
    extern __typeof__(name) dc_lib_entry_##name __attribute__((alias(#name)));     \
    ret dc_lib_old_##name params { return body_##name(1, DC_UNPAREN args); }        \
    LIB_SYMVERS(LIB_THIS, name)

/* The same for a function of no parameters (ncclGroupStart, ncclGroupEnd). */
#define LIB_BODY_VOID(ret, name) static inline __attribute__((always_inline)) ret body_##name(int lib_v)
#define LIB_ENTRIES_VOID(ret, name)                                                 \
    DC_EXPORT ret name(void) { return body_##name(0); }                             \
    extern __typeof__(name) dc_lib_entry_##name __attribute__((alias(#name)));     \
    ret dc_lib_old_##name(void) { return body_##name(1); }                          \
    LIB_SYMVERS(LIB_THIS, name)

/* A checked entry point: `ret attr name params`, forwarding `args`.
 * Without its real function it says so once and returns `fail`; the
 * outermost call runs `check` (a parenthesised statement, guard held; lib_v
 * is the call's version) before the real call; `ok` is the library's
 * success status (sync=1 synchronises only a call that returned it). */
#define LIB_HOOK(ret, attr, name, params, args, fail, ok, check)                    \
    LIB_BODY(ret, name, params)                                                     \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), (fail);                                   \
        if (lib_begin(lib_v)) {                                                     \
            LIB_COPY_IN();                                                          \
            DC_UNPAREN check;                                                       \
            lib_checked();                                                          \
        }                                                                           \
        ret r = real args;                                                          \
        lib_end(r == (ok));                                                         \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, params, args)

#define P(x) ((uintptr_t)(x))
/* A device-pointer argument by its header name. */
#define ARG(name_, p_) { .name = (name_), .ptr = P(p_) }
/* A workspace argument: checked when its size is not 0. */
#define SPACE(name, size) ARG(#name, (size) ? (name) : NULL)
#define NARGS(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* `name(htype *handle)` makes a handle: remembered with the device current
 * then (kind).  The library's own calls inside (cuSOLVER makes a cuBLAS
 * handle) are not the program's: only the outermost is remembered. */
#define LIB_CREATE_HOOK(ret, attr, name, htype, kind, fail, ok)                     \
    LIB_BODY(ret, name, (htype *handle))                                            \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), (fail);                                   \
        int chk = lib_begin(lib_v);                                                 \
        if (chk)                                                                    \
            lib_checked();                                                          \
        ret r = real(handle);                                                       \
        if (chk && r == (ok) && handle && dc_enter()) {                             \
            int d = dc_current_device();                                            \
            if (d >= 0)                                                             \
                dc_libh_set((kind), P(*handle), (uint64_t)d);                       \
            dc_leave();                                                             \
        }                                                                           \
        lib_end(0);                                                                 \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, (htype *handle), (handle))
/* `name(htype handle)` destroys one: forgotten. */
#define LIB_DESTROY_HOOK(ret, attr, name, htype, kind, fail, ok)                    \
    LIB_BODY(ret, name, (htype handle))                                             \
    {                                                                               \
        LIB_REAL(name);                                                             \
        if (!real)                                                                  \
            return dc_lib_missing(#name), (fail);                                   \
        ret r = real(handle);                                                       \
        if (r == (ok) && dc_enter()) {                                              \
            dc_libh_forget((kind), P(handle));                                      \
            dc_leave();                                                             \
        }                                                                           \
        return r;                                                                   \
    }                                                                               \
    LIB_ENTRIES(ret, attr, name, (htype handle), (handle))

/* --- symbol versions ---------------------------------------------------------------- */

/* Each hook of a versioned library is exported as name@@<its version>
 * (DC_SYMVER_AS, preload/export.h); NCCL's are unversioned (exports.map.in
 * lists them).  A library's older version: an assembler macro per library,
 * dc_old_<id> name, exports dc_lib_old_<name> as name@<DC_LIBOLD's node>
 * the same way (an alias label dc_libold_<name>; DC_SYMVER_AS cannot be used
 * inside an assembler macro); it does nothing for a library without one
 * (each DC_LIB defines it empty, its DC_LIBOLD redefines it). */
#define LIB_SYMVER(name, version) DC_SYMVER_AS(name, name, "lib", "@@" version)
#define SYMVER_CUBLAS(name) LIB_SYMVER(name, "libcublas.so.13")
#define SYMVER_CUBLASLT(name) LIB_SYMVER(name, "libcublasLt.so.13")
#define SYMVER_NCCL(name)
#define SYMVER_CUFFT(name) LIB_SYMVER(name, "libcufft.so.12")
#define SYMVER_CUDNN(name) LIB_SYMVER(name, "libcudnn.so.9")
#define SYMVER_CUSOLVER(name) LIB_SYMVER(name, "libcusolver.so.12")
#define LIB_SYMVERS(id, name) LIB_SYMVERS_(id, name)
#define LIB_SYMVERS_(id, name) SYMVER_##id(name) __asm__("dc_old_" #id " " #name "\n");
#define DC_LIB(id, soname, version) __asm__(".macro dc_old_" #id " name\n.endm\n");
#include "preload/hooks_lib.def"
#define DC_LIBOLD(id, node)                                                         \
    __asm__(".purgem dc_old_" #id "\n"                                           \
            ".macro dc_old_" #id " name\n"                                       \
            ".globl dc_libold_\\name\n"                                           \
            ".set dc_libold_\\name, dc_lib_old_\\name\n"                          \
            ".symver dc_libold_\\name, \\name@" #node "\n"                        \
            ".endm\n");
#include "preload/hooks_lib.def"

#pragma GCC visibility pop
#endif
