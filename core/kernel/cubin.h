/* image: devcheck's own reader of CUDA kernel images -- what a kernel's
 * image says about its parameters.  It reads what the driver is handed:
 *  - a fatbin (header 0xBA55ED50: ELF and PTX entries, LZ4- or
 *    zstd-compressed as nvcc emits them) or the runtime's wrapper of one
 *    (__fatBinC_Wrapper_t, 0x466243B1),
 *  - an ELF cubin: `.nv.info.<kernel>` sections, one EIATTR_KPARAM_INFO
 *    record per parameter (ordinal, offset, size, and the pointer's state
 *    space when the PTX declared the parameter `.ptr`: bits 8-11 of the
 *    record's last word, 4 .global, 5 generic, 1-3 .local/.shared/.const;
 *    bits 0-7 the log2 of its .ptr alignment; bits 18-31 the size),
 *  - PTX text: `.entry` parameter lists (`.ptr` and its state space,
 *    `.align N .b8 name[size]` aggregates, scalar types) and, for a
 *    top-level 64-bit parameter, its use as an address in the body (loaded
 *    with ld.param and converted with cvta.to.global, or dereferenced),
 *  - a cubin's own DWARF (.debug_info, nvcc -G): each parameter's type, read
 *    with libdw (core/kernel/hostdwarf.c) from a copy of the ELF.
 * The sim has a reader of its own: the two share no code.
 *
 * Contract: pure functions of the bytes given (no CUDA); every read is
 * bounded by the size given (a wrapper's pointer and a fatbin's own header
 * are followed: they are the caller's, as the driver reads them); any input,
 * however malformed, gives an answer (possibly no kernels) and never a
 * crash.  Decompression needs libzstd.so.1 for zstd entries (loaded on first
 * use, RTLD_LOCAL); without it those entries are skipped. */
#ifndef DEVCHECK_CORE_IMAGE_H
#define DEVCHECK_CORE_IMAGE_H
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* What the image says about one parameter being a pointer. */
enum dc_img_ptr {
    DC_IMG_PTR_NONE = 0,        /* nothing */
    DC_IMG_PTR_DECL,            /* PTX `.ptr .global` / `.ptr` (generic) */
    DC_IMG_PTR_KPARAM,          /* cubin: the KPARAM record's space is .global or generic */
    DC_IMG_PTR_USE,             /* PTX: loaded and converted with cvta.to.global, or dereferenced */
    DC_IMG_PTR_OTHER_SPACE,     /* a .ptr into .shared / .const / .local: not a global address */
};

/* What the image says the parameter is. */
enum dc_img_kind {
    DC_IMG_UNKNOWN = 0,
    DC_IMG_SCALAR,              /* PTX .u64/.s64/.b64/.f64/... (a 64-bit one may still be a pointer: see ptr) */
    DC_IMG_FLOAT,               /* PTX .f64/.f32/.f16: never a pointer */
    DC_IMG_AGGREGATE,           /* PTX `.b8 name[size]`: a struct passed by value */
};

struct dc_img_param {
    uint32_t offset, size;
    uint8_t ptr;                /* enum dc_img_ptr */
    uint8_t kind;               /* enum dc_img_kind */
    uint8_t dw;                 /* enum dc_dw_kind (core/kernel/hostdwarf.h): what the cubin's own DWARF (-G) says; 0 nothing */
    uint8_t src;                /* enum dc_src_kind (core/kernel/source.h): what the NVRTC source says; 0 nothing */
};

struct dc_img_kernel {
    char *name;
    unsigned nparams;
    struct dc_img_param *params;
    uint8_t from_elf;           /* offsets and sizes from the cubin's KPARAM records */
    uint8_t from_ptx;           /* the PTX declared it */
    uint8_t layout;             /* offsets and sizes known (from either) */
    uint8_t dw_read;            /* the DWARF of its cubin was read */
};

struct dc_img;                  /* the kernels of one image */

/* Reads the image at data (`size` bytes; 0: a fatbin wrapper, or an image
 * whose headers give its size).  NULL only when memory ran out; an image
 * devcheck cannot read gives one with no kernels. */
struct dc_img *dc_img_parse(const void *data, size_t size);
/* The kernel named `name`, or NULL. */
const struct dc_img_kernel *dc_img_find(const struct dc_img *img, const char *name);
/* How many kernels, and the i-th (tests, and a module holding one kernel). */
unsigned dc_img_count(const struct dc_img *img);
const struct dc_img_kernel *dc_img_at(const struct dc_img *img, unsigned i);
void dc_img_free(struct dc_img *img);
/* What the source says of kernel `name`'s n parameters (core/kernel/source.c:
 * enum dc_src_kind each); 1 when the kernel has exactly n parameters. */
int dc_img_set_source(struct dc_img *img, const char *name, const uint8_t *kinds, unsigned n);

/* The size of the image at data by its own headers (fatbin, ELF), or its
 * text up to the NUL (PTX), reading at most `avail` bytes; 0 when it is
 * none of these.  A wrapper (__fatBinC_Wrapper_t) is not measured: 0. */
size_t dc_img_extent(const void *data, size_t avail);
/* Is data a fatbin wrapper?  Then *fatbin is the fatbin it points to. */
int dc_img_is_wrapper(const void *data, const void **fatbin);

#pragma GCC visibility pop
#endif
