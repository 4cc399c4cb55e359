/* image: reads the kernels of a code image, as the real driver's loader does.
 *
 * Accepts what cuModuleLoadData / cuLibraryLoadData accept: a fatbin wrapper
 * (magic 0x466243b1, what __cudaRegisterFatBinary receives), a fatbin (magic
 * 0xBA55ED50), a cubin (ELF), or NUL-terminated PTX text.  For every kernel
 * it gives the mangled name, the twin base name and the parameter layout read
 * from the code itself: the cubin's .nv.info.<kernel> EIATTR_KPARAM_INFO
 * records, or the PTX .entry parameter list.  Never a hand-written table.
 *
 * Pointer evidence: for every parameter, what the code itself says about
 * it (SIM_PARAM_* flags): the cubin's KPARAM_INFO record of a parameter
 * declared `.ptr` in the PTX ptxas compiled (Triton's kernels: bit 0x400 of its
 * third word, the pointer's state space global or generic), a PTX `.ptr`
 * declaration, or a PTX body that uses the parameter's loaded value as an
 * address (cvta.to.global, or ld/st/atom/red through it or a value derived
 * from it by mov/add/sub/mad).  nvcc's cubins carry none of these: their
 * kernels' pointer parameters are known from the mangled name (operands.c).
 *
 * Variables: the __device__ and __constant__ variables a cubin defines
 * (STT_OBJECT symbols in .nv.global, .nv.global.init or .nv.constant<N>)
 * or a PTX module declares at file scope (.global / .const), with their size
 * and initial bytes.
 *
 * Contract: returns 0 and fills *out, or -1 with *out zeroed when the image is
 * not one of the formats above (or is malformed: every read is bounds-checked).
 * Thread-safe (no global state).  The image is not referenced after the call.
 *
 * Fatbins: ELF entries are preferred; with several (one per arch) a kernel's
 * layout comes from the first entry that lists it.  PTX entries are read
 * only when an ELF entry could not be (or there is none), and only add
 * kernels no ELF entry has.  zstd-compressed entries (nvcc 13) and LZ4 ones
 * (CUDA 11/12) are decompressed.  An entry that cannot be read is skipped; a
 * fatbin none of whose entries can be read is an error.  A wrapper may be of
 * version 1 (nvcc -c) or 2 (nvcc -dlink). */
#ifndef SIMCUDA_IMAGE_H
#define SIMCUDA_IMAGE_H
#include <stddef.h>
#include <stdint.h>

struct sim_param { uint32_t offset, size; };

/* sim_kernel_info.ptr[i]: what the image says about parameter i */
#define SIM_PARAM_PTR_DECL  0x01    /* declared a global/generic pointer (.ptr, KPARAM) */
#define SIM_PARAM_PTR_USE   0x02    /* the PTX body uses its value as an address */

struct sim_kernel_info {
    char *name;                 /* mangled, as in the image: "_Z4vaddPKfS0_Pfi" */
    char *base;                 /* twin name: "vadd" (no namespace, template args,
                                   params); the name itself if it is not mangled */
    unsigned nparams;
    struct sim_param *params;   /* ordered by parameter index; NULL if nparams == 0 */
    unsigned char *ptr;         /* nparams SIM_PARAM_* flags; NULL: no evidence at all */
    unsigned char *deref;       /* operands.c's cache (launch.c, lock held); freed here */
};

struct sim_var {
    char *name;                 /* as in the image: "gvar", "_ZN2ns3nsvE" */
    size_t size;
    unsigned char *init;        /* size bytes of initial value, NULL: zeros */
    int managed;                /* __managed__: not a per-device global */
};

struct sim_image {
    unsigned nkernels;
    struct sim_kernel_info *kernels;
    unsigned nvars;
    struct sim_var *vars;
};

/* size may be 0 when the format carries its own size (wrapper, fatbin, ELF, PTX):
 * the image is then trusted to be as long as its own headers say (a wrapper's
 * fatbin always is).  With a size, nothing past data + size is read. */
int  sim_image_parse(const void *data, size_t size, struct sim_image *out);
/* Size of an image that carries its own (wrapper, fatbin, ELF, PTX), or 0. */
size_t sim_image_extent(const void *data);
/* Frees what sim_image_parse() filled and zeroes *img; NULL is accepted. */
void sim_image_free(struct sim_image *img);
/* The kernel of that exact (mangled) name, or NULL. */
const struct sim_kernel_info *sim_image_find(const struct sim_image *img, const char *name);
/* The variable of that exact name, or NULL. */
const struct sim_var *sim_image_var(const struct sim_image *img, const char *name);
/* "_Z4vaddPKfS0_Pfi" -> "vadd", "_ZN2ns6kernelIfEEvPT_" -> "kernel", "plain" -> "plain",
 * nvcc's static-kernel names "__nv_static_<n>_<id>__Z6kernelPi" -> "kernel".
 * Writes at most len bytes (NUL-terminated); returns 0, or -1 (buf set to "")
 * if it does not fit or the name starts with _Z but is no function name. */
int  sim_twin_base(const char *mangled, char *buf, size_t len);
#endif
