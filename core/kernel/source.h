/* source: kernel parameter types from the source a program compiled with
 * NVRTC (issue 28, issue 26's "NVRTC kernels typed from their source").
 * The NVRTC hooks (preload/hooks_nvrtc.c) hand over
 *  - the source given to nvrtcCreateProgram: every `__global__` function's
 *    parameter list is read (a small C parser: comments, strings and
 *    preprocessor lines skipped, `extern "C"` and `extern "C" { }` seen,
 *    templates and anything it cannot read give no evidence);
 *  - the lowered name nvrtcGetLoweredName gave a name expression (a C++
 *    kernel is then known by its mangled name too);
 *  - the code nvrtcGetCUBIN / nvrtcGetPTX wrote: its bytes (as far as the
 *    image's own headers say, dc_img_extent) are hashed and remembered with
 *    the program's kernels, after the program itself is destroyed.
 * When a module is loaded from the same bytes (cuModuleLoadData,
 * cuLibraryLoadData: core/kernel/images.c), dc_source_image marks each of its
 * kernels' parameters with what the source says (core/kernel/cubin.h, `src`).
 *
 * What a parameter is by its source: a pointer (`T *x`, `T x[]`, not a
 * function pointer), a builtin scalar (int, float, size_t, ...: not a
 * pointer), or unknown (a named type -- a struct, a typedef, a template
 * parameter, a macro --, a reference).  Only kernels whose whole list was
 * read are kept.
 *
 * Contract: thread-safe (one mutex, held while calling nothing but
 * dc_pnames_set, whose own mutex is held while calling nothing);
 * needs no CUDA; any text, however malformed, gives an answer (maybe no
 * kernels) and never a crash; memory is bounded (at most DC_SOURCE_MAX
 * programs and outputs remembered; the oldest outputs are dropped). */
#ifndef DEVCHECK_CORE_SOURCE_H
#define DEVCHECK_CORE_SOURCE_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct dc_img;

#define DC_SRC_NAME 48

/* What the source says of one parameter. */
enum dc_src_kind { DC_SRC_UNKNOWN = 0, DC_SRC_POINTER, DC_SRC_SCALAR };

struct dc_src_param {
    uint8_t kind;               /* enum dc_src_kind */
    uint8_t size;               /* DC_SRC_POINTER: 8; DC_SRC_SCALAR: its size in bytes (0: unknown) */
    char name[DC_SRC_NAME];     /* its name in the source ("" unnamed, or longer than the room) */
};

/* The __global__ functions of `src` (len bytes, or up to a NUL): calls
 * fn(arg, name, extern_c, params, n) for each one whose parameter list was
 * read; returns how many.  (The parser; tests call it directly.) */
typedef void (*dc_src_kernel_fn)(void *arg, const char *name, int extern_c, const struct dc_src_param *p,
                                 unsigned n);
unsigned dc_source_parse(const char *src, size_t len, dc_src_kernel_fn fn, void *arg);

/* nvrtcCreateProgram succeeded: prog's source (NUL-terminated). */
void dc_source_program(const void *prog, const char *src);
/* nvrtcGetLoweredName(prog, expr) gave `lowered`. */
void dc_source_lowered(const void *prog, const char *expr, const char *lowered);
/* nvrtcGetCUBIN / nvrtcGetPTX wrote `size` bytes of code at `code`. */
void dc_source_output(const void *prog, const void *code, size_t size);
/* nvrtcDestroyProgram(prog): its outputs stay known. */
void dc_source_destroyed(const void *prog);
/* A module was loaded from `size` bytes at data (parsed as img): names each
 * parameter of a matching kernel as the source does (core/kernel/pnames.h,
 * when every one is named), and marks the
 * parameters of each kernel a remembered output of the same bytes defines.
 * Returns how many kernels it typed. */
unsigned dc_source_image(const void *data, size_t size, struct dc_img *img);
/* Forget everything (tests). */
void dc_source_reset(void);

#define DC_SOURCE_MAX 4096

#pragma GCC visibility pop
#endif
