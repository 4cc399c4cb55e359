/* kernels: what devcheck knows of each kernel it sees launched, decided once
 * per kernel and cached per function (CUfunction) or kernel (CUkernel)
 * handle: its name, its parameter layout, and what each 8-byte word of its
 * parameters is -- the home of per-kernel evidence.
 *
 * Layout (offset and size of each parameter), the first that answers:
 *   the driver (cuFuncGetParamInfo / cuKernelGetParamInfo, driver 12.4+; an
 *   answer of 0 parameters is believed only when the other query, the image
 *   or the mangled name agrees), the kernel's image (core/kernel/cubin.c: the
 *   cubin's KPARAM records, the PTX parameter list), the mangled name when
 *   every parameter is a pointer or a builtin scalar (natural alignment).
 *   None: the layout is unknown and the launch is counted unchecked, with
 *   the reason.
 * Word classes (what a word can prove), from the best evidence:
 *   DC_WORD_PTR     a pointer parameter: the mangled signature (T*), numba's
 *                   array ABI (its data pointer), the PTX (`.ptr .global`, or
 *                   a 64-bit parameter converted with cvta.to.global or
 *                   dereferenced), the cubin's KPARAM pointer space
 *   DC_WORD_FIELD   a pointer field of a parameter whose layout is known:
 *                   the host function's debug information (a struct passed
 *                   by value), std::array<T*, N> / at::detail::Array<T*, N>
 *   DC_WORD_NONPTR  proven not a pointer: a builtin scalar, a non-pointer
 *                   field or padding of a known layout, a PTX float or
 *                   .ptr into another state space
 *   launch shape    a parameter nothing above typed, of exactly 8 bytes at an
 *                   8-byte offset (not an aggregate), in a kernel of origin
 *                   program or jit: a DC_PC_POINTER of evidence
 *                   DC_EV_LAUNCH_SHAPE, weak (core/verdict/check.c: at most a
 *                   warning, never migrated)
 *   DC_WORD_UNKNOWN everything else (an aggregate of unknown layout, a 64-bit
 *                   scalar nothing says anything about)
 * Only PTR and FIELD words are checked (core/verdict/check.c); an unknown word
 * never makes a finding by itself.
 *
 * Contract: lookups are thread-safe and call the driver (guard held) only
 * for a handle not seen yet.  Cached descriptions are never freed while the
 * process runs: an unload retires them (off the table, still readable), so a
 * launch holding one stays safe, and a reused handle is asked afresh; so
 * does a context's end for its functions (dc_kernels_ctx_gone). */
#ifndef DEVCHECK_CORE_KERNELS_H
#define DEVCHECK_CORE_KERNELS_H
#include <cuda.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* What one 8-byte word of a parameter is. */
enum dc_word {
    DC_WORD_NONPTR = 0,
    DC_WORD_UNKNOWN,
    DC_WORD_PTR,
    DC_WORD_FIELD,
};

/* What a whole parameter is. */
enum dc_pclass {
    DC_PC_UNKNOWN = 0,          /* every word unknown */
    DC_PC_POINTER,              /* an 8-byte pointer parameter (its word +0 is DC_WORD_PTR) */
    DC_PC_NONPTR,               /* no word is a pointer */
    DC_PC_WORDS,                /* words[] gives each 8-byte word's class */
};

/* Where the evidence came from (a finding's "evidence"). */
enum dc_evidence {
    DC_EV_NONE = 0,
    DC_EV_SIGNATURE,            /* the mangled name */
    DC_EV_NUMBA,                /* numba's array ABI in the mangled name */
    DC_EV_PTX,                  /* PTX declaration or address use */
    DC_EV_CUBIN,                /* the cubin's KPARAM record */
    DC_EV_DEBUG_INFO,           /* the host function's DWARF */
    DC_EV_DWARF,                /* the image's own DWARF (a cubin built with -G) */
    DC_EV_SOURCE,               /* the source the program compiled (NVRTC) */
    DC_EV_LAUNCH_SHAPE,         /* weak: an 8-byte top-level parameter nothing typed, in a kernel the
                                 * program made or loaded itself (program or jit origin) */
    DC_EV_COUNT
};
const char *dc_evidence_name(int ev);           /* "signature", "numba", ... */

/* Parameter i of a kernel: its offset and size in the argument layout,
 * and what its words are. */
struct dc_param {
    uint32_t offset, size;
    uint8_t cls;                /* enum dc_pclass */
    uint8_t ev;                 /* enum dc_evidence of its pointer words */
    const uint8_t *words;       /* DC_PC_WORDS: one enum dc_word per 8-byte word, from the parameter's start */
};

/* Where the layout came from. */
enum dc_layout_from { DC_LAYOUT_NONE = 0, DC_LAYOUT_DRIVER, DC_LAYOUT_IMAGE, DC_LAYOUT_SIGNATURE };

/* One word a launch of the kernel checks (a PTR or FIELD word), planned
 * once per kernel from its parameters: the check's hot loop reads these. */
struct dc_pword {
    uint32_t param;             /* parameter index */
    uint32_t offset;            /* of the word in the parameter */
    uint32_t arg_offset;        /* of the word in the packed argument layout */
    uint8_t kind;               /* enum dc_word_kind (report/finding.h): pointer parameter or field */
    uint8_t ev;                 /* enum dc_evidence */
};

struct dc_kernel {
    const void *key;            /* CUfunction or CUkernel */
    int is_kernel;              /* key is (answered as) a CUkernel */
    char *name;                 /* mangled (or plain) name, our copy; NULL if unknown */
    int layout_known;           /* 0: nothing gave the layout (see unchecked) */
    unsigned nparams;
    struct dc_param *params;
    uint8_t layout_from;        /* enum dc_layout_from */
    const char *unchecked;      /* !layout_known: why (a static string) */
    unsigned checked_words;     /* PTR and FIELD words: what a launch can prove */
    unsigned unknown_words;     /* words of unknown meaning */
    uint8_t *word_store;        /* the words[] of its DC_PC_WORDS parameters */
    struct dc_pword *pwords;    /* the words to check, in parameter and offset order */
    unsigned npwords;
    int planned;                /* pwords is the plan (0: memory ran out; scan the parameters) */
    uint8_t origin;             /* enum dc_origin (core/kernel/origin.h): who made its image */
    uint64_t name_hash;         /* dc_kernel_name_hash(name) (report/finding.h); 0 when unnamed */
};

/* The cached description of key (a CUkernel when is_kernel; a CUfunction,
 * or a CUkernel cast to one, otherwise); NULL only when memory ran out: then
 * *tmp is filled for this launch and must be released with
 * dc_kernel_release_tmp.  Asks the driver on first sight (guard held). */
const struct dc_kernel *dc_kernel_lookup_slow(const void *key, int is_kernel, struct dc_kernel *tmp);
/* The hit path, inline: the thread's own cache of the last kernels seen,
 * valid while dc_kernels_gen is (an unload or a context's end retires). */
struct dc_kernel_tc {
    const void *key;
    const struct dc_kernel *k;
    uint64_t gen;
};
#define DC_KERNEL_TC 16
#define dc_kernel_tc_index(key) ((size_t)(((uint64_t)(uintptr_t)(key) * 0x9e3779b97f4a7c15ull) >> 60))
extern __thread struct dc_kernel_tc dc_kernel_tcache[DC_KERNEL_TC] __attribute__((tls_model("initial-exec")));
extern uint64_t dc_kernels_gen;
/* Two-way: a key lives in its slot or the one beside it (index ^ 1), so two
 * kernels launched in turn whose keys share a slot do not evict each other. */
static inline const struct dc_kernel *dc_kernel_lookup(const void *key, int is_kernel, struct dc_kernel *tmp)
{
    size_t i = dc_kernel_tc_index(key);
    uint64_t g = __atomic_load_n(&dc_kernels_gen, __ATOMIC_ACQUIRE);
    const struct dc_kernel_tc *c = &dc_kernel_tcache[i];
    if (c->key == key && c->gen == g)
        return c->k;
    c = &dc_kernel_tcache[i ^ 1];
    if (c->key == key && c->gen == g)
        return c->k;
    return dc_kernel_lookup_slow(key, is_kernel, tmp);
}
void dc_kernel_release_tmp(struct dc_kernel *tmp);
/* Bytes the kernels' descriptions and their table hold: --stats. */
size_t dc_kernels_bytes(void);

/* Context ctx went (core/contexts.c): the descriptions of its functions (and
 * of functions whose context is unknown) are retired, since the driver may
 * hand their handles to other kernels; CUkernels stay. */
void dc_kernels_ctx_gone(CUcontext ctx);

/* The evidence dc_kernel_lookup gathered for one kernel (core/kernel/evidence.c
 * decides from it; tests give it directly). */
struct dc_img_kernel;
struct dc_dw_param;
struct dc_evidence_in {
    const char *name;                   /* mangled or plain name; NULL if unknown */
    const struct dc_param *driver;      /* the driver's layout (offset, size), ndriver of them */
    int ndriver;                        /* -1: the driver gave none */
    int driver_zero_confirmed;          /* ndriver == 0 and the other query agreed */
    const char *driver_why;             /* ndriver < 0: why (a static string) */
    const struct dc_img_kernel *img;    /* what its image says; NULL: no image */
    int use_dwarf;                      /* look for the host function's debug information */
    /* Where it is looked for: NULL, the loaded objects (core/kernel/hostdwarf.c);
     * else host_params(key, ...), answering as dc_dwarf_params does (a
     * record's, dc_process_queries). */
    int (*host_params)(const void *key, struct dc_dw_param *out, int max);
    const void *key;
    int origin;                         /* enum dc_origin of its image: decides the launch-shape evidence */
};
/* Fills k->layout_known, nparams, params (with their classes), layout_from,
 * unchecked, the word counts and word_store from the evidence (k->name is the
 * caller's).  Allocation failure leaves the layout unknown.  Free with
 * dc_kernel_release_tmp. */
void dc_kernel_decide(struct dc_kernel *k, const struct dc_evidence_in *in);
/* Does deciding this kernel need its image?  (No when the driver gave the
 * layout and the mangled name classifies every parameter that is not an
 * aggregate: reading a large fatbin for nothing is avoided.) */
int dc_kernel_needs_image(const char *name, int ndriver);

/* What devcheck can check on the bound driver (start-up line, summary):
 * fills `buf` with one sentence, *version with the driver's CUDA version
 * (cuDriverGetVersion, 0 if unknown). */
void dc_kernels_capabilities(char *buf, unsigned len, int *version);
/* Does the driver give parameter layouts (cuFuncGetParamInfo and
 * cuKernelGetParamInfo, not denied)? */
int dc_kernels_driver_layouts(void);

/* fork handlers of the cache's lock (core/lifecycle.c registers them). */
void dc_kernels_fork_prepare(void);
void dc_kernels_fork_parent(void);
void dc_kernels_fork_child(void);

#pragma GCC visibility pop
#endif
