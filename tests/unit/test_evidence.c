/* Unit tests of the kernel evidence and the word classes (core/kernel/mangle.c,
 * core/kernel/cubin.c, core/kernel/hostdwarf.c, core/kernel/evidence.c, core/owner/ptrinfo.c) and of
 * what each class can prove in the launch check (core/verdict/check.c):
 *  - the signature parser on real mangled names (nvcc, PyTorch, numba,
 *    nvcc's extended lambdas) and on fuzzed ones;
 *  - devcheck's image reader on real nvcc / ptxas output (fatbins with zstd
 *    and LZ4 entries, a cubin, PTX, ptxas's KPARAM pointer bits) and on
 *    fuzzed images;
 *  - the layout and class decisions: pointer parameters, a struct whose
 *    pointer fields are known from this program's own debug information,
 *    unknown aggregates, the 0-parameter answer confirmed or not;
 *  - the check: pointer parameters and known fields are checked, a stale
 *    pointer in a field of unknown meaning and a packed int pair are not, an
 *    end iterator is never an operand (not even of the next allocation),
 *    pageable host memory only in an ordinary mapping;
 *  - /proc/self/maps lines as NVIDIA's driver leaves them (a PROT_NONE
 *    reservation, /dev/nvidia* mappings).
 * argv[1]: the directory holding the fixtures tests/unit.mk builds; argv[2]:
 * where to write the check's report files; argv[3] (optional): fuzz rounds. */
#include "core/verdict/check.h"
#include "core/core.h"
#include "core/kernel/hostdwarf.h"
#include "core/kernel/cubin.h"
#include "core/kernel/kernels.h"
#include "core/kernel/mangle.h"
#include "core/base/options.h"
#include "core/kernel/origin.h"
#include "core/owner/ptrinfo.h"
#include "core/owner/registry.h"
#include "core/kernel/source.h"
#include "report/report.h"
#include "tests/unit/unit.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

static const char *fixtures, *outdir;

static unsigned char *slurp(const char *name, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "missing fixture %s\n", path);
        CHECK(!"fixture");
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        buf[n] = 0;
    fclose(f);
    *size = (size_t)n;
    return buf;
}

/* ---- the signature parser ------------------------------------------------------------ */

/* kinds as letters: P pointer, S scalar, A aggregate, a pointer array, s scalar array, U unknown */
static void sig_is(const char *name, const char *want)
{
    struct dc_sig_param p[64];
    char got[80] = "";
    int n = dc_sig_params(name, p, 64);
    if (n < 0) {
        snprintf(got, sizeof got, "-1");
    } else {
        for (int i = 0; i < n && i < 64; i++)
            got[i] = "UPSAas"[p[i].kind];
        got[n < 64 ? n : 64] = 0;
    }
    CHECK(!strcmp(got, want));
    if (strcmp(got, want))
        fprintf(stderr, "  %s: got %s, want %s\n", name, got, want);
}

static void test_signatures(void)
{
    sig_is("_Z6concatPKfS0_Pfii", "PPPSS");                 /* S0_: const float* */
    sig_is("_Z4vaddPKfS0_Pfi", "PPPS");
    sig_is("_Z5layer9LayerArgs", "A");
    sig_is("_Z4zerov", "");
    sig_is("_Z2k1PKfPfi1S1Txdc", "PPSAASSS");
    sig_is("kv_append", "-1");                              /* a plain C name says nothing */
    sig_is("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
           "SAa");                                          /* T1_: std::array<char*, 1> */
    sig_is("_ZN2at6native18elementwise_kernelILi128ELi4EZNS0_22gpu_kernel_impl_nocastIZZZNS0_15cos_kernel_cudaERNS_"
           "18TensorIteratorBaseEENKUlvE0_clEvENKUlvE1_clEvEUnvhdl0_1_0_0_PFvS4_ENS0_15cos_kernel_cudaE3_N3c104HalfESA_"
           "EEEvS4_RKT_EUnvhdl0_0_0_3_PFvS4_RKSB_ES2_ISB_E1_viE16OffsetCalculatorILi2EjLb0EESt5arrayIPcLm2EESF_EEviT1_",
           "SA");                                           /* a lambda closure: an aggregate */
    sig_is("_Z1fZ4mainEUlvE_", "A");
    sig_is("_Z1kIJiPfEEvDpT_", "SP");                       /* a parameter pack expanded */
    sig_is("_ZNSt3__15arrayIPfLm2EE4dataEv", "");           /* libc++'s std::array: a member function */
    sig_is("_Z1fNSt3__15arrayIPfLm3EEE", "a");
    sig_is("_Z1fSt5arrayIiLm3EE", "s");
    sig_is("_Z1fN2at6detail5ArrayIPcLi3EEE", "a");
    sig_is("_Z1fRi", "U");                                  /* a reference: an address nvcc passes as is */
    sig_is("_Z1fM1AFvvEM1Ai", "SS");                        /* pointers to members are no data pointers */
    sig_is("_Z1fPFviE", "U");                               /* a function pointer: code, not data */
    sig_is("_ZN2at6native19indexFuncSmallIndexIaijLi1ELi1ELin2ENS0_44_GLOBAL__N__b23ef953_11_Indexing_cu_89862edb"
           "9ReduceAddEEEvNS_4cuda6detail10TensorInfoIT_T1_EENS6_IKS7_S8_EENS6_IKT0_S8_EEiiS8_llRKT5_S7_",
           "AAASSSSSUS");
    /* numba: meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim] per array */
    sig_is("_ZN8__main__3addB2v1B92cw51cXTLSUwv1sDUaKthoaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqOkEJoHkbttqdVhoqlspQGNF"
           "HSgJ5BnXagIAE5ArrayIfLi1E1A7mutable7alignedE5ArrayIfLi2E1C7mutable7alignedEx",
           "UUSSPSSUUSSPSSSSS");
    sig_is("_ZN6cudapy8__main__4fillB2v1E5ArrayIfLi1E1A7mutable7alignedE6Record", "-1");   /* not understood */
    /* nvcc's extended lambdas: after one, substitutions are not trusted (SJ_ -> unknown) */
    sig_is("_ZN2at6native60_GLOBAL__N__ea7ea33f_27_DistributionRandomKernel_cu_f88cee4443distribution_elementwise"
           "_grid_stride_kernelIjLi4EZZZNS0_9templates4cuda21random_from_to_kernelIPNS_17CUDAGeneratorImplEEEvRNS_18"
           "TensorIteratorBaseEmlT_ENKUlvE_clEvENKUlvE5_clEvEUnvdtl0_PFvS9_mlS7_ES5_IS7_E5uint428_ZNS1_27distribution"
           "_nullary_kernelIfjSF_S7_SG_ZZZS5_IS7_EvS9_mlSA_ENKSB_clEvENKSC_clEvEUnvdl2_SE_S5_IS7_E27_mlEEvS9_T2_RKT3_T4"
           "_EUnvdl3_PFvS9_S7_RKSG_SI_ESH_IfjSF_S7_SG_SI_E1_PciKSI_EEvlNS_15PhiloxCudaStateET1_SJ_",
           "SAAU");
    sig_is("_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_12prelu_kernelERNS_14TensorIteratorEENKUlvE_clEv"
           "ENKUlvE_clEvEUnvhdl0_1_0_0_PFvS3_ENS0_12prelu_kernelE1_dddESt5arrayIPcLm3EELb0EEEviT0_T1_",
           "SAa");
    /* clone suffixes are allowed; garbage after the name is not */
    sig_is("_Z4vaddPKfS0_Pfi.constprop.0", "PPPS");
    sig_is("_Z4vaddPKfS0_PfiX", "-1");
    sig_is("_Z", "-1");
    sig_is("", "-1");
    CHECK_EQ_LL(dc_sig_params(NULL, NULL, 0), -1);
}

/* ---- the image reader -------------------------------------------------------------------- */

static const struct dc_img_kernel *kernel_in(const struct dc_img *img, const char *name)
{
    const struct dc_img_kernel *k = dc_img_find(img, name);
    CHECK(k != NULL);
    if (!k)
        fprintf(stderr, "  no kernel %s\n", name);
    return k;
}

/* ev_cpp(const float*, float*, int, Args, double, long long, char): offsets
 * 0 8 16 24(24) 48 56 64; ev_plain(float*, u64, int); ev_none(). */
static void check_evidence_image(const char *file, int want_ptx)
{
    size_t n;
    unsigned char *data = slurp(file, &n);
    if (!data)
        return;
    struct dc_img *img = dc_img_parse(data, n);
    CHECK(img != NULL);
    CHECK_EQ_LL(dc_img_count(img), 3);
    const struct dc_img_kernel *k = kernel_in(img, "_Z6ev_cppPKfPfi4Argsdxc");
    if (k) {
        static const uint32_t off[] = { 0, 8, 16, 24, 48, 56, 64 }, size[] = { 8, 8, 4, 24, 8, 8, 1 };
        CHECK(k->layout);
        CHECK_EQ_LL(k->nparams, 7);
        for (unsigned i = 0; i < k->nparams && i < 7; i++) {
            CHECK_EQ_LL(k->params[i].offset, off[i]);
            CHECK_EQ_LL(k->params[i].size, size[i]);
        }
        if (want_ptx && k->nparams == 7) {
            CHECK(k->from_ptx);
            CHECK_EQ_LL(k->params[3].kind, DC_IMG_AGGREGATE);        /* .align 8 .b8 [24] */
            CHECK_EQ_LL(k->params[3].ptr, DC_IMG_PTR_NONE);          /* a field's use is not the parameter's */
            CHECK_EQ_LL(k->params[4].kind, DC_IMG_FLOAT);
            CHECK_EQ_LL(k->params[0].ptr, DC_IMG_PTR_USE);           /* cvta.to.global */
        }
    }
    k = kernel_in(img, "ev_plain");
    if (k && k->nparams == 3) {
        CHECK_EQ_LL(k->params[1].offset, 8);
        CHECK_EQ_LL(k->params[2].offset, 16);
        if (want_ptx) {
            CHECK_EQ_LL(k->params[0].ptr, DC_IMG_PTR_USE);
            CHECK_EQ_LL(k->params[1].ptr, DC_IMG_PTR_NONE);          /* converted to float: a number */
        }
    } else {
        CHECK(!"ev_plain: 3 parameters");
    }
    k = kernel_in(img, "ev_none");
    if (k) {
        CHECK(k->layout);
        CHECK_EQ_LL(k->nparams, 0);
    }
    dc_img_free(img);
    free(data);
}

static void test_images(void)
{
    check_evidence_image("evidence.fatbin", 1);         /* PTX zstd-compressed (nvcc's default) */
    check_evidence_image("evidence_lz4.fatbin", 1);     /* -compress-mode=speed: LZ4 */
    check_evidence_image("evidence_size.fatbin", 1);    /* -compress-mode=size: the ELF compressed too */
    check_evidence_image("evidence.cubin", 0);
    check_evidence_image("evidence.ptx", 1);

    /* the fatbin through the runtime's wrapper, as __cudaRegisterFatBinary gets it */
    size_t n;
    unsigned char *fb = slurp("evidence.fatbin", &n);
    if (fb) {
        struct { int magic, version; const void *data; void *filename; } wrapper = { 0x466243B1, 1, fb, NULL };
        const void *inner = NULL;
        CHECK(dc_img_is_wrapper(&wrapper, &inner) && inner == fb);
        CHECK_EQ_LL(dc_img_extent(fb, n), n);
        struct dc_img *img = dc_img_parse(&wrapper, 0);
        CHECK_EQ_LL(dc_img_count(img), 3);
        dc_img_free(img);
        free(fb);
    }

    /* ptxas records .ptr parameters' state spaces: global and generic are
     * pointers, .shared is not a global address */
    unsigned char *cubin = slurp("evidence_ptr.cubin", &n);
    if (cubin) {
        struct dc_img *img = dc_img_parse(cubin, n);
        const struct dc_img_kernel *k = kernel_in(img, "ev_triton");
        if (k && k->nparams == 5) {
            CHECK_EQ_LL(k->params[0].ptr, DC_IMG_PTR_KPARAM);
            CHECK_EQ_LL(k->params[1].ptr, DC_IMG_PTR_KPARAM);
            CHECK_EQ_LL(k->params[2].ptr, DC_IMG_PTR_OTHER_SPACE);
            CHECK_EQ_LL(k->params[3].ptr, DC_IMG_PTR_NONE);
            CHECK_EQ_LL(k->params[4].ptr, DC_IMG_PTR_NONE);
        } else {
            CHECK(!"ev_triton: 5 parameters");
        }
        dc_img_free(img);
        free(cubin);
    }
    unsigned char *ptx = slurp("evidence_ptr.ptx", &n);
    if (ptx) {
        struct dc_img *img = dc_img_parse(ptx, n);
        const struct dc_img_kernel *k = kernel_in(img, "ev_triton");
        if (k && k->nparams == 5) {
            CHECK_EQ_LL(k->params[0].ptr, DC_IMG_PTR_USE);
            CHECK_EQ_LL(k->params[2].ptr, DC_IMG_PTR_OTHER_SPACE);
            CHECK_EQ_LL(k->params[4].ptr, DC_IMG_PTR_NONE);
            CHECK_EQ_LL(k->params[4].offset, 32);
        }
        dc_img_free(img);
        free(ptx);
    }
    /* nothing devcheck can read: no kernels, no crash */
    struct dc_img *img = dc_img_parse("not an image", 12);
    CHECK_EQ_LL(dc_img_count(img), 0);
    dc_img_free(img);
}

/* ---- word classes ---------------------------------------------------------------------------- */

struct host_args {                      /* passed by value: its layout from this program's DWARF */
    const float *in;                    /* +0 */
    float *out;                         /* +8 */
    int n, pad;                         /* +16 */
    union { float *p; long bits; } u;   /* +24: either: unknown */
    double scale;                       /* +32 */
};

/* A host function as nvcc writes a kernel's: its debug information tells the
 * struct's pointer fields (noipa: kept out of line, with its own DWARF). */
__attribute__((noipa, used)) void ev_host_kernel(struct host_args a, float *p, long n)
{
    __asm__ volatile("" ::"r"(&a), "r"(p), "r"(n) : "memory");
}

static void decide(struct dc_kernel *k, const char *name, const struct dc_param *drv, int ndrv, int zero_ok,
                   const struct dc_img_kernel *img)
{
    memset(k, 0, sizeof *k);
    k->name = name ? strdup(name) : NULL;
    struct dc_evidence_in in = { .name = name, .driver = drv, .ndriver = ndrv, .driver_zero_confirmed = zero_ok,
                                 .driver_why = "no driver layout (test)", .img = img, .use_dwarf = 1 };
    dc_kernel_decide(k, &in);
}

static void test_classes(void)
{
    struct dc_kernel k;
    /* pointer parameters from the signature; the int is no pointer */
    struct dc_param vadd[] = { { 0, 8, 0, 0, NULL }, { 8, 8, 0, 0, NULL }, { 16, 8, 0, 0, NULL },
                               { 24, 4, 0, 0, NULL } };
    decide(&k, "_Z4vaddPKfS0_Pfi", vadd, 4, 0, NULL);
    CHECK(k.layout_known && k.layout_from == DC_LAYOUT_DRIVER && k.nparams == 4);
    CHECK(k.params[0].cls == DC_PC_POINTER && k.params[0].ev == DC_EV_SIGNATURE);
    CHECK(k.params[2].cls == DC_PC_POINTER);
    CHECK(k.params[3].cls == DC_PC_NONPTR);
    CHECK_EQ_LL(k.checked_words, 3);
    dc_kernel_release_tmp(&k);

    /* a struct by value whose layout debug information gives: pointers at
     * +0 and +8 are fields, the ints and the double are not pointers, the
     * union is unknown; the other parameters from the same DWARF */
    struct dc_param host[] = { { 0, sizeof(struct host_args), 0, 0, NULL }, { 40, 8, 0, 0, NULL },
                               { 48, 8, 0, 0, NULL } };
    decide(&k, "ev_host_kernel", host, 3, 0, NULL);
    CHECK(k.layout_known && k.nparams == 3);
    if (k.nparams == 3) {
        CHECK_EQ_LL(k.params[0].cls, DC_PC_WORDS);
        CHECK_EQ_LL(k.params[0].ev, DC_EV_DEBUG_INFO);
        if (k.params[0].words) {
            CHECK_EQ_LL(k.params[0].words[0], DC_WORD_FIELD);
            CHECK_EQ_LL(k.params[0].words[1], DC_WORD_FIELD);
            CHECK_EQ_LL(k.params[0].words[2], DC_WORD_NONPTR);
            CHECK_EQ_LL(k.params[0].words[3], DC_WORD_UNKNOWN);
            CHECK_EQ_LL(k.params[0].words[4], DC_WORD_NONPTR);
        }
        CHECK_EQ_LL(k.params[1].cls, DC_PC_POINTER);
        CHECK_EQ_LL(k.params[1].ev, DC_EV_DEBUG_INFO);
        CHECK_EQ_LL(k.params[2].cls, DC_PC_NONPTR);
        CHECK_EQ_LL(k.checked_words, 3);
        CHECK_EQ_LL(k.unknown_words, 1);
    }
    dc_kernel_release_tmp(&k);

    /* an aggregate nothing describes (no host function): every word unknown */
    struct dc_param agg[] = { { 0, 48, 0, 0, NULL } };
    decide(&k, "_Z6opaque11OffsetCalcs", agg, 1, 0, NULL);
    CHECK(k.layout_known && k.params[0].cls == DC_PC_UNKNOWN && k.unknown_words == 6 && k.checked_words == 0);
    dc_kernel_release_tmp(&k);

    /* no driver layout: the image's; classes from its PTX */
    struct dc_img_param ip[] = { { 0, 8, DC_IMG_PTR_USE, DC_IMG_SCALAR, 0, 0 }, { 8, 8, DC_IMG_PTR_NONE, DC_IMG_SCALAR, 0, 0 },
                                 { 16, 4, DC_IMG_PTR_NONE, DC_IMG_SCALAR, 0, 0 } };
    struct dc_img_kernel ik = { "ev_plain", 3, ip, 0, 1, 1, 0 };
    decide(&k, "ev_plain", NULL, -1, 0, &ik);
    CHECK(k.layout_known && k.layout_from == DC_LAYOUT_IMAGE && k.nparams == 3);
    CHECK(k.params[0].cls == DC_PC_POINTER && k.params[0].ev == DC_EV_PTX);
    CHECK(k.params[1].cls == DC_PC_UNKNOWN);            /* a 64-bit number nothing describes */
    CHECK(k.params[2].cls == DC_PC_NONPTR);
    dc_kernel_release_tmp(&k);
    /* a producer that marks its pointers (.ptr, Triton): the unmarked 64-bit one is a number */
    ip[0].ptr = DC_IMG_PTR_KPARAM;
    decide(&k, "ev_plain", NULL, -1, 0, &ik);
    CHECK(k.params[0].cls == DC_PC_POINTER && k.params[0].ev == DC_EV_CUBIN);
    CHECK(k.params[1].cls == DC_PC_NONPTR);
    dc_kernel_release_tmp(&k);

    /* the 0-parameter answer: believed when confirmed ... */
    decide(&k, "ev_plain", NULL, 0, 1, NULL);
    CHECK(k.layout_known && k.nparams == 0);
    dc_kernel_release_tmp(&k);
    decide(&k, "_Z4zerov", NULL, 0, 0, NULL);           /* by the name */
    CHECK(k.layout_known && k.nparams == 0);
    dc_kernel_release_tmp(&k);
    /* ... the image's layout when it has parameters (a CUkernel passed as a CUfunction) ... */
    decide(&k, "ev_plain", NULL, 0, 0, &ik);
    CHECK(k.layout_known && k.layout_from == DC_LAYOUT_IMAGE && k.nparams == 3);
    dc_kernel_release_tmp(&k);
    /* ... the name's when every parameter is a pointer or builtin ... */
    decide(&k, "_Z4vaddPKfS0_Pfi", NULL, 0, 0, NULL);
    CHECK(k.layout_known && k.layout_from == DC_LAYOUT_SIGNATURE && k.nparams == 4);
    if (k.nparams == 4)
        CHECK(k.params[3].offset == 24 && k.params[3].size == 4 && k.params[1].cls == DC_PC_POINTER);
    dc_kernel_release_tmp(&k);
    /* ... and otherwise not: unchecked, with the reason */
    decide(&k, "ev_plain", NULL, 0, 0, NULL);
    CHECK(!k.layout_known && k.unchecked && strstr(k.unchecked, "reported no parameters"));
    dc_kernel_release_tmp(&k);
    decide(&k, "kv_append", NULL, -1, 0, NULL);
    CHECK(!k.layout_known && k.unchecked && !strcmp(k.unchecked, "no driver layout (test)"));
    dc_kernel_release_tmp(&k);
}

/* ---- what each class proves ------------------------------------------------------------------- */

#define D0  0x520000000000ull   /* cuda:0, 4096 bytes */
#define D1  0x520000001000ull   /* cuda:1, right after D0 */
#define D2  0x520000003000ull   /* cuda:2, peer 0 -> 2 */

static void add(uintptr_t base, size_t size, int owner)
{
    struct dc_alloc a;
    memset(&a, 0, sizeof a);
    a.base = base;
    a.size = size;
    a.kind = DC_MEM_DEVICE;
    a.owner = owner;
    CHECK_EQ_LL(dc_reg_add(&a), 0);
}

static struct dc_report_stats stats(void)
{
    struct dc_report_stats s;
    dc_report_stats(&s);
    return s;
}

/* The text of the report file `name` the scenario wrote (its first 64 KiB;
 * empty if none), in a buffer the next call reuses. */
static const char *report_text(const char *name)
{
    static char text[1 << 16];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    return text;
}

static void scenario(const char *opts)
{
    char o[4096], err[512];
    snprintf(o, sizeof o, "log_path=%s/evidence.log:json_path=%s/evidence.json%s%s", outdir, outdir, *opts ? ":" : "",
             opts);
    CHECK(dc_options_parse(o, err, sizeof err) == 0);
    dc_report_reset();
    dc_check_reset();
    dc_reg_reset();
    dc_core_open();
    add(D0, 4096, 0);
    add(D1, 4096, 1);
    add(D2, 4096, 2);
    dc_reg_set_peer(0, 2, 1);
}

/* One launch on cuda:0 of a kernel with a pointer parameter (p), a struct of
 * known layout (words: field, non-pointer, field, unknown) and an aggregate
 * of unknown layout (u, two words). */
static int launch(uintptr_t p, const uintptr_t s[4], const uintptr_t u[2])
{
    static const uint8_t words[] = { DC_WORD_FIELD, DC_WORD_NONPTR, DC_WORD_FIELD, DC_WORD_UNKNOWN };
    struct dc_param params[] = { { 0, 8, DC_PC_POINTER, DC_EV_SIGNATURE, NULL },
                                 { 8, 32, DC_PC_WORDS, DC_EV_DEBUG_INFO, words },
                                 { 40, 16, DC_PC_UNKNOWN, DC_EV_NONE, NULL } };
    void *args[] = { &p, (void *)s, (void *)u };
    struct dc_launch l = {
        .kernel = "_Z1k1S1U", .kernel_key = (void *)0x77, .api = "cuLaunchKernel", .device = 0,
        .current_device = -1, .args = args, .params = params, .nparams = 3, .layout_known = 1,
    };
    return dc_check_launch(&l);
}

static void test_check_classes(void)
{
    scenario("");
    uintptr_t clean_s[4] = { D0, 0x400000004ull, D0 + 16, 0 }, zero_u[2] = { 0, 0 };
    CHECK_EQ_LL(launch(D0 + 8, clean_s, zero_u), 0);
    /* a pointer parameter to another device's memory */
    CHECK_EQ_LL(launch(D1 + 64, clean_s, zero_u), 1);
    /* a pointer field of a known layout to another device's memory
     * (pipeline_struct's stale activation) */
    uintptr_t stale_field[4] = { D0, 7, D1 + 8, 0 };
    CHECK_EQ_LL(launch(D0, stale_field, zero_u), 1);
    /* a stale pointer in a field of unknown meaning (reduce_kernel's word
     * +176), a packed int pair, an unknown word of a known struct: nothing */
    uintptr_t stale_unknown[4] = { D0, D1, D0, D1 + 64 };
    uintptr_t junk_u[2] = { D1 + 32, 0x400000004ull };
    CHECK_EQ_LL(launch(D0, stale_unknown, junk_u), 0);
    /* end iterators: one past D0 (where D1 starts: D0 is cuda:0's own, D1 is
     * not accessible) is D0's end, not D1's operand; one past D2 (nothing
     * after it) is nothing either, never host memory */
    uintptr_t ends[4] = { D0 + 4096, 0, D2 + 4096, 0 };
    CHECK_EQ_LL(launch(D0 + 4096, ends, zero_u), 0);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.errors, 2);
    CHECK_EQ_LL(s.warnings, 0);
    /* a pointer to the start of D2 (peer-accessible) right after nothing: peer_access */
    uintptr_t peer[4] = { D2, 0, D0, 0 };
    CHECK_EQ_LL(launch(D0, peer, zero_u), 0);
    CHECK_EQ_LL(stats().warnings, 1);
    /* pageable host memory: an error in a pointer parameter, nothing in a
     * word of unknown meaning; an address in no mapping: nothing */
    void *heap = malloc(256);
    uintptr_t heap_u[2] = { (uintptr_t)heap, 0 };
    CHECK_EQ_LL(launch(D0, clean_s, heap_u), 0);
    /* ... nothing in a pointer field either: an unset field's stack garbage
     * (NVIDIA's graphMemoryNodes: validateGPU's negSquareArrays) */
    int on_stack = 0;
    uintptr_t garbage[4] = { (uintptr_t)heap + 16, 0, (uintptr_t)&on_stack, 0 };
    CHECK_EQ_LL(launch(D0, garbage, zero_u), 0);
    CHECK_EQ_LL(launch((uintptr_t)heap + 8, clean_s, zero_u), 1);
    /* the driver's PROT_NONE reservation of the device address space: never host memory */
    void *reserved = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(reserved != MAP_FAILED);
    CHECK_EQ_LL(launch((uintptr_t)reserved + 4096, clean_s, zero_u), 0);
    s = stats();
    CHECK_EQ_LL(s.errors, 3);
    CHECK_EQ_LL(s.findings, 4);
    dc_report_finish();
    munmap(reserved, 1 << 20);
    free(heap);

    /* sync=1's async_error lists a stale word of unknown meaning as a
     * suspect, after the pointers */
    scenario("sync=1");
    uintptr_t p = D0;
    void *args[] = { &p, (void *)stale_unknown, (void *)junk_u };
    static const uint8_t words[] = { DC_WORD_FIELD, DC_WORD_NONPTR, DC_WORD_FIELD, DC_WORD_UNKNOWN };
    struct dc_param params[] = { { 0, 8, DC_PC_POINTER, DC_EV_SIGNATURE, NULL },
                                 { 8, 32, DC_PC_WORDS, DC_EV_DEBUG_INFO, words },
                                 { 40, 16, DC_PC_UNKNOWN, DC_EV_NONE, NULL } };
    struct dc_launch l = {
        .kernel = "_Z1k1S1U", .kernel_key = (void *)0x77, .api = "cuLaunchKernel", .device = 0,
        .current_device = -1, .args = args, .params = params, .nparams = 3, .layout_known = 1,
    };
    dc_check_async_error(&l, "CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK_EQ_LL(stats().findings, 1);
    dc_report_finish();
    const char *log = report_text("evidence.log");
    CHECK_STR_CONTAINS(log, "param 1, word +24 = 0x520000001040: device memory owned by cuda:1 [a word of unknown "
                            "meaning: a suspect]; cuda:0 may not access it");
    CHECK_STR_CONTAINS(log, "operand: param 1, word +24 = 0x520000001040");

    /* what the driver told is forgotten at a module unload (its variables
     * go without a free devcheck sees); what devcheck saw stays */
    struct dc_alloc told;
    memset(&told, 0, sizeof told);
    told.base = 0x530000000000ull;
    told.size = 256;
    told.kind = DC_MEM_DEVICE;
    told.owner = 1;
    told.from_driver = 1;
    CHECK_EQ_LL(dc_reg_add(&told), 0);
    CHECK_EQ_LL(dc_reg_drop_from_driver(), 1);
    struct dc_alloc got;
    CHECK(dc_reg_lookup(0x530000000010ull, &got) != 0);
    CHECK(dc_reg_lookup(D1 + 8, &got) == 0 && !got.from_driver);
}

/* ---- kernels without types: the launch's shape ----------------------------------------------- */

static void decide_from(struct dc_kernel *k, const struct dc_img_kernel *img, int origin)
{
    memset(k, 0, sizeof *k);
    k->name = strdup(img->name);
    struct dc_evidence_in in = { .name = img->name, .ndriver = -1, .driver_why = "test", .img = img,
                                 .origin = origin };
    dc_kernel_decide(k, &in);
}

/* scale_rows(int n, float a, float *x, long long m, S s) as a cubin's KPARAM
 * records give it (sizes only), plus an 8-byte struct the PTX calls .b8[8]:
 * only the two top-level 8-byte parameters at 8-byte offsets take the
 * launch's shape, and only in a kernel the program loaded itself. */
static void test_shape_classes(void)
{
    struct dc_img_param ip[] = { { 0, 4, 0, 0, 0, 0 }, { 4, 4, 0, 0, 0, 0 }, { 8, 8, 0, 0, 0, 0 }, { 16, 8, 0, 0, 0, 0 },
                                 { 24, 16, 0, 0, 0, 0 }, { 40, 8, 0, DC_IMG_AGGREGATE, 0, 0 } };
    struct dc_img_kernel ik = { "scale_rows", 6, ip, 1, 0, 1, 0 };
    struct dc_kernel k;
    for (int o = 0; o < DC_ORIGIN_COUNT; o++) {
        decide_from(&k, &ik, o);
        int shape = o == DC_ORIGIN_PROGRAM || o == DC_ORIGIN_JIT;
        CHECK(k.layout_known && k.nparams == 6);
        if (k.nparams == 6) {
            CHECK_EQ_LL(k.params[0].cls, DC_PC_NONPTR);
            CHECK_EQ_LL(k.params[2].cls, shape ? DC_PC_POINTER : DC_PC_UNKNOWN);
            CHECK_EQ_LL(k.params[2].ev, shape ? DC_EV_LAUNCH_SHAPE : DC_EV_NONE);
            CHECK_EQ_LL(k.params[3].cls, shape ? DC_PC_POINTER : DC_PC_UNKNOWN);
            CHECK_EQ_LL(k.params[4].cls, DC_PC_UNKNOWN);    /* a struct by value: never */
            CHECK_EQ_LL(k.params[5].cls, DC_PC_UNKNOWN);    /* an 8-byte aggregate: never */
        }
        dc_kernel_release_tmp(&k);
    }
    /* a declared integer the PTX uses as an address (a uint64_t cast to a
     * pointer in the kernel) is a pointer: a use beats a type */
    ip[3].src = DC_SRC_SCALAR;
    ip[3].ptr = DC_IMG_PTR_USE;
    decide_from(&k, &ik, DC_ORIGIN_JIT);
    CHECK(k.nparams == 6 && k.params[3].cls == DC_PC_POINTER && k.params[3].ev == DC_EV_PTX);
    dc_kernel_release_tmp(&k);
    ip[3].ptr = DC_IMG_PTR_NONE;
    decide_from(&k, &ik, DC_ORIGIN_JIT);
    CHECK(k.nparams == 6 && k.params[3].cls == DC_PC_NONPTR && k.params[3].ev == DC_EV_SOURCE);
    dc_kernel_release_tmp(&k);
    ip[3].src = 0;
    /* stronger evidence wins: the PTX's pointer marks make the others numbers */
    ip[2].ptr = DC_IMG_PTR_KPARAM;
    ip[3].kind = DC_IMG_SCALAR;
    decide_from(&k, &ik, DC_ORIGIN_JIT);
    CHECK(k.nparams == 6 && k.params[2].ev == DC_EV_CUBIN && k.params[3].cls == DC_PC_NONPTR);
    dc_kernel_release_tmp(&k);
}

/* scale_rows(int n, float a, float *x, long long m, struct s) in a cubin
 * (tests/e2e/untyped.cu): plain, sizes only, so x and m take the launch's
 * shape; built with -G, its own DWARF types x as a pointer, m as an integer
 * and s as an aggregate, and the launch's shape is not needed. */
static void test_image_dwarf(void)
{
    for (int g = 0; g < 2; g++) {
        size_t n;
        unsigned char *b = slurp(g ? "untyped_G.cubin" : "untyped.cubin", &n);
        struct dc_img *img = b ? dc_img_parse(b, n) : NULL;
        const struct dc_img_kernel *ik = img ? dc_img_find(img, "scale_rows") : NULL;
        CHECK(ik && ik->nparams == 5);
        if (ik && ik->nparams == 5) {
            struct dc_kernel k;
            decide_from(&k, ik, DC_ORIGIN_JIT);
            CHECK_EQ_LL(k.params[2].cls, DC_PC_POINTER);
            CHECK_EQ_LL(k.params[2].ev, g ? DC_EV_DWARF : DC_EV_LAUNCH_SHAPE);
            CHECK_EQ_LL(k.params[3].cls, g ? DC_PC_NONPTR : DC_PC_POINTER);
            CHECK_EQ_LL(k.params[4].cls, DC_PC_UNKNOWN);
            CHECK_EQ_LL(k.params[0].cls, DC_PC_NONPTR);
            dc_kernel_release_tmp(&k);
        }
        dc_img_free(img);
        free(b);
    }
}

/* ---- NVRTC sources ---------------------------------------------------------------------------- */

static void src_collect(void *arg, const char *name, int extern_c, const struct dc_src_param *p, unsigned n)
{
    char *out = arg;
    size_t l = strlen(out);
    l += (size_t)snprintf(out + l, 4096 - l, "%s%s:", name, extern_c ? "(C)" : "");
    for (unsigned i = 0; i < n && l < 4000; i++)
        l += (size_t)snprintf(out + l, 4096 - l, "%s%c%u", i ? "," : "",
                              p[i].kind == DC_SRC_POINTER ? 'P' : p[i].kind == DC_SRC_SCALAR ? 'S' : 'U', p[i].size);
    snprintf(out + l, 4096 - l, ";");
}

/* The parameters' names as the source gives them ("" unnamed). */
static void src_names(void *arg, const char *name, int extern_c, const struct dc_src_param *p, unsigned n)
{
    (void)extern_c;
    char *out = arg;
    size_t l = strlen(out);
    l += (size_t)snprintf(out + l, 4096 - l, "%s:", name);
    for (unsigned i = 0; i < n && l < 4000; i++)
        l += (size_t)snprintf(out + l, 4096 - l, "%s%s", i ? "," : "", p[i].name);
    snprintf(out + l, 4096 - l, ";");
}

static const char untyped_src[] =
    "struct untyped_s { float *p; long long n; };\n"
    "extern \"C\" __global__ void scale_rows(int n, float a, float *x, long long m, struct untyped_s s)\n"
    "{ int i = threadIdx.x; if (i < n) x[i] = x[i] * a + (float)(m & 1) + (float)(s.n & 1); }\n";

static void test_source(void)
{
    static char got[4096];
    const char *src =
        "// __global__ void fake(int *p) in a comment\n"
        "/* extern \"C\" __global__ void fake2(int *p) */\n"
        "#define K(x) __global__ void x(float *p) \\\n  { }\n"
        "K(m1)\n"
        "const char *s = \"__global__ void fake3(int *p)\";\n"
        "extern \"C\" __global__ void scale(float *x, float a, int n) { x[0] = a * n; }\n"
        "extern \"C\" {\n"
        "  __global__ void __launch_bounds__(256, 2) k2(const double* __restrict__ a, unsigned long long m,\n"
        "                                               MyStruct s, int &r) { }\n"
        "  __global__ void fp(void (*cb)(int), float x[4], long n, unsigned u, size_t z = 4) { }\n"
        "  __global__ void va(int n, ...) { }\n"
        "}\n"
        "template <typename T> __global__ void t(T *x, int n) { }\n"
        "__global__ void cpp(float *x, int, std::size_t q, Foo<float *> f) { }\n"
        "extern \"C\" __global__ void none(void) { }\n";
    got[0] = 0;
    unsigned n = dc_source_parse(src, 0, src_collect, got);
    CHECK_EQ_LL(n, 5);
    const char *want = "scale(C):P8,S4,S4;k2(C):P8,S8,U0,U0;fp(C):U0,P8,S8,S4,S8;cpp:P8,S4,U0,U0;none(C):;";
    if (strcmp(got, want))
        fprintf(stderr, "parsed %s\n  want %s\n", got, want);
    CHECK(!strcmp(got, want));
    got[0] = 0;
    dc_source_parse(src, 0, src_names, got);
    want = "scale:x,a,n;k2:a,m,s,r;fp:,x,n,u,z;cpp:x,,q,f;none:;";
    if (strcmp(got, want))
        fprintf(stderr, "named %s\n  want %s\n", got, want);
    CHECK(!strcmp(got, want));
    /* malformed text: an answer, no crash */
    got[0] = 0;
    CHECK_EQ_LL(dc_source_parse("extern \"C\" __global__ void broken(float *x, int", 0, src_collect, got), 0);
    CHECK_EQ_LL(dc_source_parse("__global__ (((", 0, src_collect, got), 0);
    CHECK_EQ_LL(dc_source_parse("\"unterminated __global__ void z(int *p) {}", 0, src_collect, got), 0);

    /* a program's output linked to the module loaded from the same bytes:
     * scale_rows's x is a pointer by its source, m an integer */
    size_t sz;
    unsigned char *cubin = slurp("untyped.cubin", &sz);
    if (!cubin)
        return;
    dc_source_reset();
    const void *prog = (const void *)0x1234;
    dc_source_program(prog, untyped_src);
    dc_source_output(prog, cubin, sz);
    dc_source_destroyed(prog);                      /* the output stays known */
    unsigned char *loaded = malloc(sz);             /* the copy cuModuleLoadData is given */
    memcpy(loaded, cubin, sz);
    struct dc_img *img = dc_img_parse(loaded, sz);
    CHECK_EQ_LL(dc_source_image(loaded, sz, img), 1);
    const struct dc_img_kernel *ik = dc_img_find(img, "scale_rows");
    CHECK(ik && ik->nparams == 5);
    if (ik && ik->nparams == 5) {
        struct dc_kernel k;
        decide_from(&k, ik, DC_ORIGIN_JIT);
        CHECK_EQ_LL(k.params[2].cls, DC_PC_POINTER);
        CHECK_EQ_LL(k.params[2].ev, DC_EV_SOURCE);
        CHECK_EQ_LL(k.params[3].cls, DC_PC_NONPTR);     /* the integer: quiet whatever it holds */
        CHECK_EQ_LL(k.params[4].cls, DC_PC_UNKNOWN);    /* the struct */
        dc_kernel_release_tmp(&k);
    }
    /* and named as its source names them (a finding says `param 2 (x)`) */
    CHECK(dc_pnames_get("scale_rows", 2) && !strcmp(dc_pnames_get("scale_rows", 2), "x"));
    CHECK(dc_pnames_get("scale_rows", 4) && !strcmp(dc_pnames_get("scale_rows", 4), "s"));
    CHECK(!dc_pnames_get("scale_rows", 5));
    dc_img_free(img);
    /* other bytes (one changed) are another module: nothing */
    loaded[sz / 2] ^= 1;
    img = dc_img_parse(loaded, sz);
    CHECK_EQ_LL(dc_source_image(loaded, sz, img), 0);
    dc_img_free(img);
    dc_source_reset();
    free(loaded);
    free(cubin);
}

/* One launch on cuda:0 (origin jit) of a kernel whose param 0 has only the
 * launch's shape and param 1 is a 16-byte struct nothing describes. */
static unsigned shape_moves;            /* operands handed to mode=migrate */

static int shape_launch(uintptr_t x, const uintptr_t s[2])
{
    struct dc_moves m;
    memset(&m, 0, sizeof m);
    struct dc_param params[] = { { 0, 8, DC_PC_POINTER, DC_EV_LAUNCH_SHAPE, NULL },
                                 { 8, 16, DC_PC_UNKNOWN, DC_EV_NONE, NULL } };
    void *args[] = { &x, (void *)s };
    struct dc_launch l = {
        .kernel = "scale_rows", .kernel_key = (void *)0x78, .api = "cuLaunchKernel", .device = 0,
        .current_device = -1, .args = args, .params = params, .nparams = 2, .layout_known = 1,
        .origin = DC_ORIGIN_JIT, .moves = &m,
    };
    int e = dc_check_launch(&l);
    shape_moves += m.n;
    dc_check_moves_report(&l, &m);
    return e;
}

static void test_shape_check(const char *opts)
{
    scenario(opts);
    uintptr_t zero[2] = { 0, 0 };
    /* the launch device's own memory (or an integer equal to its address): nothing */
    CHECK_EQ_LL(shape_launch(D0 + 8, zero), 0);
    /* a by-value struct with stale pointers (another device's, the heap): nothing */
    void *heap = malloc(64);
    uintptr_t stale[2] = { D1 + 8, (uintptr_t)heap };
    CHECK_EQ_LL(shape_launch(D0, stale), 0);
    CHECK_EQ_LL(stats().findings, 0);
    /* another device's memory, pageable host memory: found, never an error */
    CHECK_EQ_LL(shape_launch(D1 + 8, zero), 0);
    CHECK_EQ_LL(shape_launch((uintptr_t)heap, zero), 0);
    /* a read-only mapping (code) is no buffer: nothing */
    CHECK_EQ_LL(shape_launch((uintptr_t)&shape_launch, zero), 0);
    struct dc_report_stats s = stats();
    CHECK_EQ_LL(s.errors, 0);
    CHECK_EQ_LL(s.warnings, 2);
    CHECK_EQ_LL(shape_moves, 0);
    dc_report_finish();
    free(heap);
    const char *js = report_text("evidence.json");
    CHECK_STR_CONTAINS(js, "\"evidence\":\"launch_shape\"");
    CHECK_STR_CONTAINS(js, "\"weak_evidence\":true");
    CHECK(!strstr(js, "\"action\":\"migrated\""));
}

/* ---- /proc/self/maps as NVIDIA's driver leaves it ------------------------------------------------ */

static int map_class(const char *line, int *writable)
{
    uintptr_t lo, hi;
    char what[96];
    return dc_maps_classify(line, &lo, &hi, writable, what, sizeof what);
}

static void test_maps(void)
{
    int w;
    CHECK_EQ_LL(map_class("200000000-c00000000 ---p 00000000 00:00 0 ", &w), DC_MAP_OTHER);
    CHECK_EQ_LL(map_class("7f0000000000-7f0000200000 rw-s 00000000 00:05 123    /dev/nvidiactl", &w), DC_MAP_OTHER);
    CHECK_EQ_LL(map_class("7f0000000000-7f0000200000 rw-s 00000000 00:05 124    /dev/nvidia-uvm", &w), DC_MAP_OTHER);
    CHECK_EQ_LL(map_class("7ffd1000-7ffd3000 r--p 00000000 00:00 0    [vvar]", &w), DC_MAP_OTHER);
    CHECK_EQ_LL(map_class("7f00-8f00 rw-s 00000000 00:01 99    /memfd:simcuda-dev0 (deleted)", &w), DC_MAP_OTHER);
    CHECK_EQ_LL(map_class("55d0-55f0 rw-p 00000000 00:00 0    [heap]", &w), DC_MAP_HOST);
    CHECK(w);
    CHECK_EQ_LL(map_class("7ffc0000-7ffc2000 rw-p 00000000 00:00 0    [stack]", &w), DC_MAP_HOST);
    CHECK_EQ_LL(map_class("7f10-7f20 rw-p 00000000 00:00 0 ", &w), DC_MAP_HOST);
    CHECK_EQ_LL(map_class("7f10-7f20 r--p 00001000 08:01 77    /usr/lib/libfoo.so", &w), DC_MAP_HOST);
    CHECK(!w);
    CHECK_EQ_LL(map_class("7f10-7f20 rw-s 00000000 00:1a 5    /dev/shm/psm_1234", &w), DC_MAP_HOST);
    CHECK_EQ_LL(map_class("7f10-7f20 rw-s 00000000 00:01 6    /dev/zero (deleted)", &w), DC_MAP_HOST);
    CHECK_EQ_LL(map_class("garbage", &w), DC_MAP_NONE);
    /* the live table: the heap is host memory, a PROT_NONE region is not */
    void *heap = malloc(64);
    uintptr_t end;
    char what[96];
    CHECK_EQ_LL(dc_maps_lookup((uintptr_t)heap, &end, &w, what, sizeof what), DC_MAP_HOST);
    void *none = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK_EQ_LL(dc_maps_lookup((uintptr_t)none, &end, &w, what, sizeof what), DC_MAP_OTHER);
    CHECK_STR_CONTAINS(what, "without read permission");
    munmap(none, 65536);
    free(heap);
}

/* ---- fuzzing: no input crashes the parsers ---------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void mutate(unsigned char *b, size_t n)
{
    unsigned edits = 1 + rnd(8);
    for (unsigned e = 0; e < edits && n; e++) {
        size_t at = rnd((unsigned)n);
        switch (rnd(4)) {
        case 0:
            b[at] = (unsigned char)rnd(256);
            break;
        case 1:
            b[at] ^= (unsigned char)(1u << rnd(8));
            break;
        case 2:
            b[at] = 0xff;
            break;
        default:
            b[at] = 0;
            break;
        }
    }
}

static void test_fuzz(unsigned rounds)
{
    static const char *names[] = {
        "_Z6concatPKfS0_Pfii", "_Z1kIJiPfEEvDpT_",
        "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
        "_ZN2at6native29vectorized_elementwise_kernelILi2EZZZNS0_12prelu_kernelERNS_14TensorIteratorEENKUlvE_clEv"
        "ENKUlvE_clEvEUnvhdl0_1_0_0_PFvS3_ENS0_12prelu_kernelE1_dddESt5arrayIPcLm3EELb0EEEviT0_T1_",
        "_ZN8__main__3addB2v1E5ArrayIfLi1E1A7mutable7alignedEx",
    };
    const char *alphabet = "_SEIJLTNZDPRKOXUnvdlhtbfi0123456789";
    struct dc_sig_param sp[16];
    for (unsigned r = 0; r < rounds; r++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", names[rnd(sizeof names / sizeof names[0])]);
        size_t len = strlen(buf);
        for (unsigned e = 1 + rnd(4); e && len > 2; e--) {
            size_t at = 2 + rnd((unsigned)(len - 2));
            if (rnd(2))
                buf[at] = alphabet[rnd((unsigned)strlen(alphabet))];
            else
                buf[len = at] = 0;
        }
        (void)dc_sig_params(buf, sp, 16);
    }
    /* the NVRTC source parser on mutated and cut sources */
    for (unsigned r = 0; r < rounds / 8; r++) {
        char text[sizeof untyped_src];
        memcpy(text, untyped_src, sizeof text);
        mutate((unsigned char *)text, sizeof text - 1);
        (void)dc_source_parse(text, rnd(sizeof text), NULL, NULL);
    }
    static const char *files[] = { "evidence.fatbin", "evidence_lz4.fatbin", "evidence_size.fatbin",
                                   "evidence.cubin", "evidence.ptx", "evidence_ptr.cubin", "untyped_G.cubin" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        unsigned char *orig = slurp(files[f], &n);
        if (!orig)
            continue;
        unsigned char *copy = malloc(n + 1);
        for (unsigned r = 0; copy && r < rounds / 8; r++) {
            memcpy(copy, orig, n + 1);
            mutate(copy, n);
            size_t cut = rnd(4) ? n : rnd((unsigned)n + 1);
            struct dc_img *img = dc_img_parse(copy, cut);   /* any answer, never a crash */
            (void)dc_img_count(img);
            dc_img_free(img);
            (void)dc_img_extent(copy, cut);
        }
        free(copy);
        free(orig);
    }
}

/* ---- the parser against nvcc's host stubs ------------------------------------------------------- *
 * nvcc names each kernel's host stub `__device_stub__` + the kernel's mangled
 * name (without its leading `_`), and gives the stub the kernel's parameters,
 * pointers as pointers and everything else by reference: a second, simpler
 * mangled name to check the kernel's against.  --stubs FILE: one stub symbol
 * a line (e.g. from `strings libtorch_cuda.so`); every kernel name the parser
 * understands must have the stub's parameter count, and a parameter it calls
 * a pointer must be a pointer in the stub. */
static int check_stubs(const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f)
        return 2;
    static char line[1 << 16];
    long pairs = 0, understood = 0, wrong = 0, pointers = 0;
    struct dc_sig_param *kp = malloc(4096 * sizeof *kp), *sp = malloc(4096 * sizeof *sp);
    while (kp && sp && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *s = line + 2 + (line[2] == 'L');
        if (strncmp(line, "_Z", 2))
            continue;
        char *end;
        long len = strtol(s, &end, 10);
        if (len <= 16 || strncmp(end, "__device_stub__Z", 16) || (size_t)len > strlen(end))
            continue;
        char kernel[1 << 15];
        if ((size_t)len - 14 >= sizeof kernel)
            continue;
        kernel[0] = '_';
        memcpy(kernel + 1, end + 15, (size_t)len - 15);
        kernel[len - 14] = 0;
        pairs++;
        int nk = dc_sig_params(kernel, kp, 4096), ns = dc_sig_params(line, sp, 4096);
        if (nk < 0 || ns < 0)
            continue;
        understood++;
        int bad = nk != ns;
        for (int i = 0; !bad && i < nk && i < 4096; i++) {
            pointers += kp[i].kind == DC_SIG_POINTER;
            bad = kp[i].kind == DC_SIG_POINTER && sp[i].kind != DC_SIG_POINTER;
        }
        if (bad) {
            wrong++;
            fprintf(stderr, "  wrong: %.300s\n", kernel);
        }
    }
    fclose(f);
    free(kp);
    free(sp);
    printf("stubs: %ld kernels, %ld understood, %ld pointer parameters, %ld wrong\n", pairs, understood, pointers,
           wrong);
    return wrong || !understood ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "--stubs"))
        return check_stubs(argv[2]);
    fixtures = argc > 1 ? argv[1] : ".";
    outdir = unit_outdir("test_evidence", argc > 2 ? argv[2] : NULL);
    unsigned rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 20000;
    mkdir(outdir, 0755);
    test_signatures();
    test_images();
    test_classes();
    test_check_classes();
    test_shape_classes();
    test_image_dwarf();
    test_source();
    test_shape_check("");
    test_shape_check("mode=migrate:host_memory=error");
    test_maps();
    test_fuzz(rounds);
    return unit_done("test_evidence");
}
