/* libcall: library calls checked at their API (issue 26).  The interposer's
 * library hooks (preload/hooks_lib.h) describe a call of cuBLAS, cuBLASLt,
 * NCCL, cuFFT, cuDNN or cuSOLVER as the device it runs on and its
 * device-pointer arguments, by their header names; the core checks each
 * argument as a pointer parameter of a kernel launched on that device
 * (core/verdict/check.c: the registry, peer access and access grants, host memory
 * policy) and reports a finding
 * naming the call (launch.api) and the argument (dc_finding.argument).  The
 * caller leaves out what the header allows to be host memory (scalars in
 * host pointer mode, host workspaces): a 0 pointer is never checked.
 *
 * Handles: which device a library handle belongs to (a cuBLAS handle: the
 * device current at cublasCreate; a cuFFT plan: the device current when it
 * was made), kept per (kind, handle) value.
 *
 * Contract: call with the guard held (core/core.h); thread-safe; nothing
 * here fails the program (a full table forgets, the caller then falls back
 * to the current device). */
#ifndef DEVCHECK_CORE_LIBCALL_H
#define DEVCHECK_CORE_LIBCALL_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

struct dc_lib_arg {
    const char *name;           /* as the header names it: "B", "sendbuff", "CUBLASLT_MATMUL_DESC_BIAS_POINTER" */
    uintptr_t ptr;              /* as passed; 0: nothing to check */
    int host_ok;                /* host memory is legal here (a cuDNN by-value tensor): only device memory
                                 * is checked */
};

/* Checks a call of entry point `api` (a string that lives as long as the
 * process: its identity in the report) running on `device` (stream as the
 * program passed it): every argument must be memory `device` may access, by
 * the rules of a kernel's pointer parameter.  mode=migrate reports each
 * finding as not migrated (DC_NO_REWRITE_LIBCALL).  device < 0 or mode=off:
 * nothing.  Returns the number of error findings. */
int dc_check_libcall(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n);
/* The same past the thread's last clean call (dc_libcall_clean_again): the
 * arguments looked up (check.c). */
int dc_check_libcall_full(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args,
                          unsigned n);

/* A pointer array of a batched call (cuBLAS's Aarray, cuSOLVER's
 * potrfBatched A): the library's kernels read it element by element and
 * then each element's matrix.  The array itself is an argument
 * (dc_check_libcall); here its elements, when the array lies in pinned or
 * registered host memory (which the device reads through the mapping and
 * devcheck can read too): the first `count` (at most DC_LIB_ARRAY_MAX, and
 * no further than the allocation's end), each checked as argument `name`
 * ("Aarray[i]").  An array in device memory is not read (that would take a
 * synchronising copy; PyTorch builds its arrays on the device), nor one in
 * managed memory (reading it on the host could migrate it under a running
 * kernel).  Returns the number of error findings. */
#define DC_LIB_ARRAY_MAX 4096
int dc_check_libcall_array(const char *api, int device, uintptr_t stream, const char *name, uintptr_t array,
                           int64_t count);

/* A call running on `device` was handed a stream of another device
 * (stream_device; < 0: unknown, nothing): a stream_mismatch naming the call
 * and its argument "stream" (launch.device: the stream's device;
 * launch.current_device: the call's).  NCCL makes its communicator's device
 * current and launches its kernel into the caller's stream, which CUDA
 * refuses for another device's stream (core/verdict/check.c). */
void dc_check_libcall_stream(const char *api, int device, uintptr_t stream, int stream_device);

/* sync=1: the call (checked, then run by the caller) ended with the
 * asynchronous error `error`: an async_error naming the call, every argument
 * devcheck knows with whether `device` may access it, and the first it may
 * not access (the suspect: JSON argument; none: "") with its allocation. */
void dc_check_libcall_async(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                            const char *error);

/* sync=1 around a library call (core/verdict/libcall.c).  Begin, after the check and
 * before the real call: NULL when the call is not to be synchronised (sync
 * off, the stream captures or another capture forbids it, or the stream
 * already holds an error: not this call's); else a record of the call (the
 * arguments copied, names too).  End, after the real call (ok: it returned
 * success): synchronises the stream and reports an asynchronous error as the
 * call's (dc_check_libcall_async); frees the record. */
struct dc_libsync;
struct dc_libsync *dc_libcall_sync_begin(const char *api, int device, uintptr_t stream,
                                         const struct dc_lib_arg *args, unsigned n);
int dc_libcall_sync_end(struct dc_libsync *r, int ok);    /* 1: it reported an asynchronous error */

/* A library call checked at its API is running on this thread (the
 * interposer's hooks say so around the real call): sync=1 synchronises the
 * call, not each of its launches.  1: the check covered the call's
 * operands, so a weak finding of a kernel it launches is not reported (the
 * call's own check is the strong evidence); 2: it did not (a cuDNN variant
 * pack devcheck never saw set), so its kernels' weak findings are. */
extern __thread int dc_libcall_active __attribute__((tls_model("initial-exec")));

/* What the running call's check covered (dc_check_libcall sets it, each
 * check of an outermost call anew; dc_check_libcall_array adds the
 * elements): the call's device and stream, and the memory of each argument
 * it judged -- the argument's allocation, or the bare address when devcheck
 * knows none.  A kernel the call launches (dc_libcall_active 1) into that
 * stream (not a default one) runs on the call's device: the launch asks the
 * driver nothing, and a word of it inside covered memory is not judged
 * again -- its verdict on that device is the call's, whose finding (if any)
 * names the call and the argument (a peer access the call made legal is
 * then the call's peer_access warning, not also its kernel's).  Words
 * outside it (the library's own workspace, a pointer array's elements past
 * DC_LIBCOVER_MAX) are checked as any kernel's. */
#define DC_LIBCOVER_MAX 16
struct dc_libcover {
    int device;                 /* < 0: nothing covered */
    unsigned n;
    uint64_t id;                /* names this content (the clean-call memo's copy); 0 after any change */
    uintptr_t stream;
    uintptr_t base[DC_LIBCOVER_MAX], size[DC_LIBCOVER_MAX];
};
extern __thread struct dc_libcover dc_libcover __attribute__((tls_model("initial-exec")));
static inline int dc_libcover_has(const struct dc_libcover *c, uintptr_t v)
{
    for (unsigned i = 0; i < c->n; i++)
        if (v - c->base[i] < c->size[i])
            return 1;
    return 0;
}
/* The thread's last call whose every argument was clean, asked again
 * (dc_check_libcall): 1 when this one (the same entry point, pointers,
 * device and stream, the registry unchanged since) is clean again -- the
 * cover is then the last one's, nclean its counts (own memory, managed
 * memory).  Keep: the call just checked, registry generation gen before
 * its lookups, nclean[0] ~0u when some argument was not clean. */
int dc_libcall_clean_again(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                           unsigned nclean[2]);
void dc_libcall_clean_keep(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args, unsigned n,
                           uint64_t gen, const unsigned nclean[2]);
/* A hook's own shortcut in front of its argument list (cublasLtMatmul's,
 * preload/hooks_cublaslt.c): name, after the call's dc_check_libcall, is
 * the thread's last clean call's name when this call (api, device, stream,
 * args) is it, else 0; named, at a later call whose raw arguments (and
 * whatever the hook derived them from) equal that one's: 1 when that clean
 * call is still the thread's last and the registry has not changed since
 * (dc_reg_gen) -- the call is clean again, counted and its cover made the
 * running call's, as dc_check_libcall would; 0: check it in full. */
uint64_t dc_libcall_clean_name(const char *api, int device, uintptr_t stream, const struct dc_lib_arg *args,
                               unsigned n);
int dc_libcall_clean_named(uint64_t name, int device, uintptr_t stream);
/* The same, and the call's first launch expected again (dc_lib_expect,
 * below): for a call whose API check covers every pointer its library's
 * kernels can receive. */
int dc_libcall_clean_named_expect(uint64_t name, int device, uintptr_t stream);

/* The kernels of a checked library call (dc_libcall_active 1, into the
 * call's stream on its device: dc_libcover), judged clean by the registry
 * alone through their plan (every pointer word in memory of that device,
 * or managed, or 0; no finding; the cover not needed): each thread keeps
 * its last DC_LIBLAUNCH_WAYS of them, function and the words its plan
 * checks (at most DC_LIBLAUNCH_WORDS).  A launch of the same function
 * whose planned words hold the same values, into the same stream while the
 * registry and the kernels' table are unchanged (dc_reg_gen,
 * dc_kernels_gen), is clean again: counted as its first was, nothing
 * looked up (a library call in a loop launches the same kernels with the
 * same arguments each time: bench/libcalls.sh).  Only the planned words are
 * compared: a planned launch's verdict reads no other byte (scan_plan), so
 * sizes and scalars may change (cublasLtMatmul's 216-byte plan struct was
 * compared whole: ~150 instructions).  Keep: after the check of such a
 * launch (args: its kernelParams; pw, nwords: its kernel's plan); again:
 * before looking the function up, 1 when it is clean again (counted). */
#define DC_LIBLAUNCH_WAYS 8
#define DC_LIBLAUNCH_WORDS 32
struct dc_pword;
void dc_libcall_launch_keep(const void *key, int device, uintptr_t stream, void *const *args,
                            const struct dc_pword *pw, unsigned nwords, uint64_t reg_gen, uint64_t kernels_gen,
                            unsigned own, unsigned managed);
int dc_libcall_launch_again(const void *key, uintptr_t stream, void *const *args);
/* The first launch of a repeated clean call (issue 37).  When a hook's
 * shortcut finds the thread's last clean call again
 * (dc_libcall_clean_named_expect: the same raw arguments, descriptor and
 * layouts as recorded, stream, the registry unchanged) and the call's API
 * check covers every pointer its library's kernels can receive (cuBLASLt's
 * matmul: its operands, the descriptor's pointers and the workspace; it
 * keeps no device memory of its own), the library makes the same launches
 * again, from the same pointers.  dc_lib_expect names the call (its
 * cover's id) until the next launch through the thin entries of
 * cuLaunchKernel and cuLaunchKernelEx (and their _ptsz forms,
 * preload/hooks_launch.c) with the guard free takes it.  dc_libcall_launch_expected:
 * 1 when that launch is the call's first launch as remembered -- the same
 * kernel into the same stream, the call's cover still the running one,
 * the registry and the kernels unchanged since its verdict -- counted as
 * it was, its words not read (the GEMM kernel's eight words and the launch
 * state were ~150 instructions per cublasLtMatmul, bench/libcalls.sh);
 * or, at the call's first repeat, when the launch memo finds it again
 * (dc_libcall_launch_again's test: its words equal a clean launch's), then
 * remembered as the call's first.  0: check it.  dc_lib_expect is cleared
 * either way: only the first launch is expected. */
extern __thread uint64_t dc_lib_expect __attribute__((tls_model("initial-exec")));
/* The call's (its cover's) id first launch as remembered (id 0: none). */
struct dc_libfirst {
    uint64_t id;
    const void *key;
    uintptr_t stream;
    int device;
    unsigned own, managed;
    uint64_t reg_gen, kernels_gen;
};
extern __thread struct dc_libfirst dc_libfirst __attribute__((tls_model("initial-exec")));
/* The launch found clean again by the launch memo and remembered as call
 * id's first (counted): 1; 0: check it. */
int dc_libcall_launch_first(uint64_t id, const void *key, uintptr_t stream, void *const *args);
/* dc_libcall_launch_expected: core/verdict/libfirst.h (inline). */

/* Kinds of handles. */
enum {
    DC_LIBH_CUBLAS = 1,         /* cublasHandle_t -> device at cublasCreate */
    DC_LIBH_CUFFT,              /* cufftHandle -> device it was made on; DC_LIBH_MULTI: a multi-GPU plan */
    DC_LIBH_CUFFT_STREAM,       /* cufftHandle -> cufftSetStream's stream */
    DC_LIBH_CUDNN,              /* cudnnHandle_t -> device at cudnnCreate */
    DC_LIBH_CUSOLVER,           /* cusolverDnHandle_t -> device at cusolverDnCreate */
    DC_LIBH_CUFFT_WSIZE,        /* cufftHandle -> the work area size cufftMakePlan* said */
    DC_LIBH_CUBLAS_STREAM,      /* cublasHandle_t -> cublasSetStream_v2's stream */
    DC_LIBH_CUBLAS_MODE,        /* cublasHandle_t -> cublasSetPointerMode_v2's mode */
    DC_LIBH_CUSOLVER_STREAM,    /* cusolverDnHandle_t -> cusolverDnSetStream's stream */
};
#define DC_LIBH_MULTI UINT64_MAX
/* Remembers handle h of `kind` with value v (a device, a work area); a
 * handle already known gets the new value. */
void dc_libh_set(int kind, uint64_t h, uint64_t v);
/* The value remembered for h: 1 with *v, 0 when unknown.  Lock-free: the
 * table's writers bump dc_libh_seq (odd while they write); each thread
 * keeps its last answer per kind, valid while the count has not moved (a
 * cuBLAS call asks two: ~10 instructions each, not ~70). */
#define DC_LIBH_KINDS 16
struct dc_libh_hit {
    unsigned seq;               /* dc_libh_seq when read (even; 0: none) */
    int found;
    uint64_t h, v;
};
extern unsigned dc_libh_seq;
extern __thread struct dc_libh_hit dc_libh_last[DC_LIBH_KINDS] __attribute__((tls_model("initial-exec")));
int dc_libh_get_slow(int kind, uint64_t h, uint64_t *v);
static inline int dc_libh_get(int kind, uint64_t h, uint64_t *v)
{
    if ((unsigned)kind < DC_LIBH_KINDS) {
        const struct dc_libh_hit *c = &dc_libh_last[kind];
        if (c->seq && c->seq == __atomic_load_n(&dc_libh_seq, __ATOMIC_ACQUIRE) && c->h == h) {
            if (c->found && v)
                *v = c->v;
            return c->found;
        }
    }
    return dc_libh_get_slow(kind, h, v);
}
/* h is gone (cublasDestroy, cufftDestroy). */
void dc_libh_forget(int kind, uint64_t h);
/* A setter's value (cublasSetStream_v2, cusolverDnSetStream): written only
 * when it differs from the record (torch sets the stream before each call;
 * each write bumps dc_libh_seq and sends every thread to the slow path). */
static inline void dc_libh_update(int kind, uint64_t h, uint64_t v)
{
    uint64_t was;
    if (!(dc_libh_get(kind, h, &was) && was == v))
        dc_libh_set(kind, h, v);
}

/* Descriptors (issue 37): what a library was told when it was told (a
 * cuDNN variant pack's unique ids, data pointers and workspace; a cuBLASLt
 * matmul descriptor's epilogue and pointers; an NCCL communicator's device
 * and rank), so that the check at execute asks the library nothing: real
 * cuDNN 9 refuses to give a finalized variant pack back, cuBLASLt's
 * getters log, NCCL's check readiness and emit NVTX ranges.  One record of
 * at most DC_LIBD_MAX bytes per (kind, descriptor), zeroed when made; the
 * caller's struct, copied in and out under the table's lock (a record is
 * never shared).  Full (16384 live descriptors): a new one is not recorded,
 * and its calls are skipped and counted as a descriptor never seen. */
enum {
    DC_LIBD_DNN_PACK = 1,       /* cudnnBackendDescriptor_t (variant pack) */
    DC_LIBD_DNN_TENSOR,         /* cudnnBackendDescriptor_t (tensor) */
    DC_LIBD_DNN_UID,            /* a tensor unique id: how many live tensors have it, by value or not */
    DC_LIBD_LT_DESC,            /* cublasLtMatmulDesc_t */
    DC_LIBD_LT_LAYOUT,          /* cublasLtMatrixLayout_t */
    DC_LIBD_NCCL_COMM,          /* ncclComm_t */
};
#define DC_LIBD_MAX 1280
/* Calls fn(rec, arg) on (kind, h)'s record, made (zeroed, `size` bytes)
 * when missing unless `make` is 0; fn runs under the table's lock and calls
 * nothing.  Returns 1 when fn ran. */
int dc_libd_update(int kind, uint64_t h, size_t size, int make, void (*fn)(void *rec, const void *arg),
                   const void *arg);
/* Bumped by every change of the records (acquire load): what a caller
 * derived from records at an older value is stale. */
extern uint64_t dc_libd_gen;
/* Copies (kind, h)'s record (size bytes) into out: 1, or 0 when none.  A
 * record of at most DC_LIBD_HIT_BYTES (an NCCL communicator's, a layout's)
 * is answered inline from the thread's last read of its kind while no
 * record changed (the hooks keep no copies of their own in front of it). */
#define DC_LIBD_KINDS 8
#define DC_LIBD_HIT_BYTES 16
struct dc_libd_hit {
    uint64_t gen, h;            /* gen 0: none */
    unsigned char rec[DC_LIBD_HIT_BYTES];
};
extern __thread struct dc_libd_hit dc_libd_last[DC_LIBD_KINDS] __attribute__((tls_model("initial-exec")));
int dc_libd_get_slow(int kind, uint64_t h, void *out, size_t size);
static inline int dc_libd_get(int kind, uint64_t h, void *out, size_t size)
{
    if ((unsigned)kind < DC_LIBD_KINDS && size <= DC_LIBD_HIT_BYTES) {
        const struct dc_libd_hit *c = &dc_libd_last[kind];
        if (c->gen == __atomic_load_n(&dc_libd_gen, __ATOMIC_ACQUIRE) && c->h == h) {
            memcpy(out, c->rec, size);
            return 1;
        }
    }
    return dc_libd_get_slow(kind, h, out, size);
}
/* (kind, h) is gone (cudnnBackendDestroyDescriptor, ncclCommDestroy). */
void dc_libd_forget(int kind, uint64_t h);
/* A call whose descriptor (`what`) devcheck never saw set (made before
 * devcheck was loaded, or the table was full) is not checked: said once on
 * the log, then each one at verbosity=2. */
void dc_libd_unseen(const char *api, const char *what);

#pragma GCC visibility pop
#endif
