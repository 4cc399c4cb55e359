/* image_parse: sim_image_parse() reads the kernels and parameter layouts of
 * real nvcc output (sim/tests/image_kernels.cu, image_rdc.cu, built by
 * image_tests.mk into IMAGE_DIR) in every form the driver receives: cubin,
 * fatbin (default, multi-arch, compressed SASS, PTX only), PTX text, and the
 * fatbin wrappers nvcc emits into objects (linked into this test). */
#include "image.h"

#include <fatbinary_section.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...) do {                                               \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* the wrappers of image_tests.mk's wrap.o and wrap_rdc.o, in link order */
extern const __fatBinC_Wrapper_t __start_nvFatBinSegment[], __stop_nvFatBinSegment[];

struct expect {
    const char *name, *base;
    unsigned nparams;
    struct sim_param p[4];
};

static const struct expect kernels[] = {
    { "_Z5mixedPfi10image_paird", "mixed", 4, { { 0, 8 }, { 8, 4 }, { 16, 16 }, { 32, 8 } } },
    { "_ZN2ns6kernelIfEEvPT_", "kernel", 1, { { 0, 8 } } },
    { "_Z8noparamsv", "noparams", 0, { { 0, 0 } } },
    { "cfunc", "cfunc", 3, { { 0, 1 }, { 2, 2 }, { 8, 8 } } },
    /* struct {double[5]; char} (48), char, float4 (align 16), int * */
    { "_Z3big9image_bigc6float4Pi", "big", 4, { { 0, 48 }, { 48, 1 }, { 64, 16 }, { 80, 8 } } },
    { "_Z4hugePi10image_huge", "huge", 2, { { 0, 8 }, { 8, 16000 } } },
};
#define NKERNELS (sizeof kernels / sizeof kernels[0])

static void *load(const char *file, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", IMAGE_DIR, file);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *d = calloc(1, (size_t)n + 1);     /* NUL-terminated for PTX */
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    *size = (size_t)n;
    return d;
}

static void check_kernel(const char *what, const struct sim_image *img, const struct expect *e)
{
    const struct sim_kernel_info *k = sim_image_find(img, e->name);
    CHECK(k, "%s: kernel %s missing", what, e->name);
    if (!k) return;
    CHECK(strcmp(k->base, e->base) == 0, "%s: %s base '%s', want '%s'", what, e->name,
          k->base, e->base);
    CHECK(k->nparams == e->nparams, "%s: %s has %u params, want %u", what, e->name,
          k->nparams, e->nparams);
    for (unsigned i = 0; i < k->nparams && i < e->nparams; i++)
        CHECK(k->params[i].offset == e->p[i].offset && k->params[i].size == e->p[i].size,
              "%s: %s param %u is (%u,%u), want (%u,%u)", what, e->name, i,
              k->params[i].offset, k->params[i].size, e->p[i].offset, e->p[i].size);
}

/* The image_kernels.cu kernels, and nothing else. */
static void check_kernels(const char *what, const void *data, size_t size)
{
    struct sim_image img;
    int rc = sim_image_parse(data, size, &img);
    CHECK(rc == 0, "%s (size %zu): parse failed", what, size);
    if (rc != 0) return;
    CHECK(img.nkernels == NKERNELS, "%s: %u kernels, want %zu", what, img.nkernels, NKERNELS);
    for (size_t i = 0; i < NKERNELS; i++) check_kernel(what, &img, &kernels[i]);
    CHECK(sim_image_find(&img, "mixed") == NULL, "%s: found by base name", what);
    CHECK(sim_image_find(&img, "nosuch") == NULL, "%s: found a missing kernel", what);
    sim_image_free(&img);
    CHECK(img.nkernels == 0 && img.kernels == NULL, "%s: free left the image set", what);
}

static void check_file(const char *file)
{
    size_t n;
    void *d = load(file, &n);
    check_kernels(file, d, n);
    check_kernels(file, d, 0);          /* size from the image's own headers */
    free(d);
}

/* image_rdc.cu after device linking: the static kernel's __nv_static_ name,
 * no device function. */
static void check_rdc(const char *what, const void *data, size_t size)
{
    struct sim_image img;
    CHECK(sim_image_parse(data, size, &img) == 0, "%s: parse failed", what);
    CHECK(img.nkernels == 2, "%s: %u kernels, want 2", what, img.nkernels);
    const struct sim_kernel_info *k = NULL;
    for (unsigned i = 0; i < img.nkernels; i++) {
        CHECK(strstr(img.kernels[i].name, "image_helper") == NULL, "%s: device function %s listed",
              what, img.kernels[i].name);
        if (strncmp(img.kernels[i].name, "__nv_static_", 12) == 0) k = &img.kernels[i];
    }
    CHECK(k && strcmp(k->base, "rdc_static") == 0 && k->nparams == 2 &&
          k->params[0].offset == 0 && k->params[0].size == 8 &&
          k->params[1].offset == 8 && k->params[1].size == 8,
          "%s: static kernel wrong", what);
    static const struct expect plain = { "_Z10rdc_kernelPi", "rdc_kernel", 1, { { 0, 8 } } };
    check_kernel(what, &img, &plain);
    sim_image_free(&img);
}

/* ---- compressed entries made here ------------------------------------ */

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

static size_t lz4_len(uint8_t *out, size_t op, size_t n)
{
    for (; n >= 255; n -= 255) out[op++] = 255;
    out[op++] = (uint8_t)n;
    return op;
}

/* A greedy LZ4 block compressor (the format of CUDA 11/12 compressed fatbin
 * entries), so that the reader's decoder meets literals, long lengths and
 * overlapping matches.  out needs n + n / 255 + 16 bytes. */
static size_t lz4_compress(const uint8_t *in, size_t n, uint8_t *out)
{
    static uint32_t table[1 << 12];
    memset(table, 0, sizeof table);
    size_t ip = 0, anchor = 0, op = 0;
    while (n >= 12 && ip + 12 <= n) {
        uint32_t seq;
        memcpy(&seq, in + ip, 4);
        uint32_t h = (seq * 2654435761u) >> 20, cand = table[h];
        table[h] = (uint32_t)ip + 1;
        uint32_t prev;
        if (cand && ip - (cand - 1) <= 65535 && (memcpy(&prev, in + cand - 1, 4), prev == seq)) {
            size_t m = cand - 1, len = 4, lit = ip - anchor;
            while (ip + len < n - 5 && in[m + len] == in[ip + len]) len++;
            size_t tok = op++;
            out[tok] = (uint8_t)((lit < 15 ? lit : 15) << 4 | (len - 4 < 15 ? len - 4 : 15));
            if (lit >= 15) op = lz4_len(out, op, lit - 15);
            memcpy(out + op, in + anchor, lit);
            op += lit;
            put16(out + op, (uint32_t)(ip - m));
            op += 2;
            if (len - 4 >= 15) op = lz4_len(out, op, len - 4 - 15);
            ip += len;
            anchor = ip;
        } else {
            ip++;
        }
    }
    size_t lit = n - anchor;
    out[op++] = (uint8_t)((lit < 15 ? lit : 15) << 4);
    if (lit >= 15) op = lz4_len(out, op, lit - 15);
    memcpy(out + op, in + anchor, lit);
    return op + lit;
}

/* A fatbin holding one entry of `kind` whose payload is `comp` (csize bytes)
 * standing for dsize bytes, with the given flags; header fields as nvcc 13
 * writes them.  Returns its size. */
static size_t make_fatbin(uint8_t *fb, uint32_t kind, uint64_t flags, const uint8_t *comp,
                          size_t csize, size_t dsize)
{
    size_t psize = (csize + 7) & ~(size_t)7;
    memset(fb, 0, 16 + 64 + psize);
    put32(fb, 0xBA55ED50u);
    put16(fb + 4, 1);
    put16(fb + 6, 16);
    put64(fb + 8, 64 + psize);
    uint8_t *e = fb + 16;
    put16(e, kind);
    put16(e + 2, 0x101);
    put32(e + 4, 64);
    put64(e + 8, psize);
    put32(e + 16, flags ? (uint32_t)csize : 0);
    put16(e + 24, 8);
    put16(e + 26, 1);
    put32(e + 28, 75);
    put64(e + 40, flags);
    put64(e + 56, flags ? dsize : 0);
    memcpy(e + 64, comp, csize);
    return 16 + 64 + psize;
}

static void check_compressed(void)
{
    size_t n, np;
    uint8_t *cubin = load("kernels.cubin", &n);
    uint8_t *ptx = load("kernels.ptx", &np);
    size_t cap = 16 + 64 + (n > np ? n : np) * 2 + 64;
    uint8_t *comp = malloc(cap), *fb = malloc(cap);
    if (!comp || !fb) exit(2);

    size_t c = lz4_compress(cubin, n, comp);
    CHECK(c < n, "the LZ4 test compressor did not compress (%zu of %zu)", c, n);
    size_t f = make_fatbin(fb, 2, 0x11 | 0x2000, comp, c, n);
    check_kernels("LZ4 ELF entry", fb, f);
    check_kernels("LZ4 ELF entry, unsized", fb, 0);

    c = lz4_compress(ptx, np, comp);
    f = make_fatbin(fb, 1, 0x11 | 0x2000, comp, c, np);
    check_kernels("LZ4 PTX entry", fb, f);

    /* a wrong decompressed size, a corrupt zstd frame: the entry is
     * unreadable, and with no other entry the image is refused */
    c = lz4_compress(cubin, n, comp);
    f = make_fatbin(fb, 2, 0x11 | 0x2000, comp, c, n + 1);
    struct sim_image img;
    CHECK(sim_image_parse(fb, f, &img) == -1, "LZ4 entry of the wrong size accepted");
    memset(comp, 0x5a, 64);
    f = make_fatbin(fb, 2, 0x11 | 0x8000, comp, 64, n);
    CHECK(sim_image_parse(fb, f, &img) == -1, "corrupt zstd entry accepted");
    /* an unreadable ELF entry next to a readable PTX one: the PTX serves */
    uint8_t *two = malloc(2 * cap);
    if (!two) exit(2);
    size_t f1 = make_fatbin(two, 2, 0x11 | 0x8000, comp, 64, n);
    size_t f2 = make_fatbin(fb, 1, 0x11, ptx, np, np);
    memcpy(two + f1, fb + 16, f2 - 16);
    put64(two + 8, f1 - 16 + f2 - 16);
    check_kernels("corrupt ELF entry and plain PTX entry", two, f1 + f2 - 16);
    free(two);
    /* the uncompressed form through the same builder */
    f = make_fatbin(fb, 2, 0x11, cubin, n, n);
    check_kernels("plain ELF entry", fb, f);
    free(comp);
    free(fb);
    free(cubin);
    free(ptx);
}

int main(void)
{
    static const char *files[] = {
        "kernels.cubin", "kernels.ptx", "kernels.fatbin", "kernels_multi.fatbin",
        "kernels_zstd.fatbin", "kernels_ptx.fatbin",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) check_file(files[i]);

    /* a wrapper made here around `nvcc -fatbin` output */
    size_t n;
    void *fb = load("kernels.fatbin", &n);
    __fatBinC_Wrapper_t w = { FATBINC_MAGIC, FATBINC_VERSION, fb, NULL };
    check_kernels("wrapper(kernels.fatbin)", &w, 0);
    check_kernels("wrapper(kernels.fatbin) sized", &w, sizeof w);
    w.version = 3;
    struct sim_image img;
    CHECK(sim_image_parse(&w, 0, &img) == -1 && img.nkernels == 0 && !img.kernels,
          "wrapper of unknown version accepted");
    w.version = FATBINC_VERSION;
    w.data = NULL;
    CHECK(sim_image_parse(&w, 0, &img) == -1, "wrapper without data accepted");
    free(fb);

    /* the wrappers nvcc put into objects, as __cudaRegisterFatBinary gets them */
    size_t nw = (size_t)(__stop_nvFatBinSegment - __start_nvFatBinSegment);
    CHECK(nw == 2, "%zu linked wrappers, want 2", nw);
    if (nw == 2) {
        CHECK(__start_nvFatBinSegment[0].version == FATBINC_VERSION, "object wrapper version");
        CHECK(__start_nvFatBinSegment[1].version == FATBINC_LINK_VERSION, "dlink wrapper version");
        check_kernels("nvcc -c object wrapper", &__start_nvFatBinSegment[0], 0);
        check_rdc("nvcc -dlink object wrapper", &__start_nvFatBinSegment[1], 0);
    }

    /* relocatable cubin: the device function has .nv.info but is no kernel */
    void *rdc = load("rdc.cubin", &n);
    check_rdc("rdc.cubin", rdc, n);
    free(rdc);

    /* cubin, fatbin and PTX agree with each other kernel by kernel */
    size_t nc, np;
    void *cub = load("kernels.cubin", &nc), *ptx = load("kernels.ptx", &np);
    struct sim_image a, b;
    if (sim_image_parse(cub, nc, &a) == 0 && sim_image_parse(ptx, np, &b) == 0) {
        CHECK(a.nkernels == b.nkernels, "cubin and PTX kernel counts differ");
        for (unsigned i = 0; i < a.nkernels; i++) {
            const struct sim_kernel_info *x = &a.kernels[i], *y = sim_image_find(&b, x->name);
            CHECK(y && y->nparams == x->nparams &&
                  (x->nparams == 0 ||
                   memcmp(y->params, x->params, x->nparams * sizeof *x->params) == 0),
                  "cubin and PTX differ for %s", x->name);
        }
        sim_image_free(&a);
        sim_image_free(&b);
    } else {
        CHECK(0, "cubin or PTX did not parse");
    }
    free(cub);
    free(ptx);

    check_compressed();

    /* not images */
    CHECK(sim_image_parse("", 0, &img) == -1, "empty string accepted");
    CHECK(sim_image_parse("hello world", 0, &img) == -1, "text without .version accepted");
    CHECK(sim_image_parse(NULL, 0, &img) == -1, "NULL accepted");
    CHECK(sim_image_parse("x", 1, NULL) == -1, "NULL out accepted");
    static const char ptx_min[] = ".version 9.0\n.target sm_75\n.address_size 64\n";
    CHECK(sim_image_parse(ptx_min, 0, &img) == 0 && img.nkernels == 0,
          "PTX with no entries rejected");
    sim_image_free(&img);
    static const char ptx_ptr[] =
        ".version 9.0 .target sm_90 .address_size 64\n"
        "/* comment .entry fake ( */ .visible .entry k(\n"
        "  .param .u64 .ptr .global .align 16 k_param_0, // pointee alignment only\n"
        "  .param .u8 k_param_1, .param .v2 .f32 k_param_2, .param .b32 k_param_3[3]\n"
        ") .maxntid 128, 1, 1 { ret; }\n"
        ".func (.param .b32 r) f(.param .b64 x) { ret; }\n";
    CHECK(sim_image_parse(ptx_ptr, 0, &img) == 0 && img.nkernels == 1 &&
          img.kernels[0].nparams == 4 &&
          img.kernels[0].params[0].offset == 0 && img.kernels[0].params[0].size == 8 &&
          img.kernels[0].params[1].offset == 8 && img.kernels[0].params[1].size == 1 &&
          img.kernels[0].params[2].offset == 16 && img.kernels[0].params[2].size == 8 &&
          img.kernels[0].params[3].offset == 24 && img.kernels[0].params[3].size == 12,
          "hand-written PTX layout wrong");
    sim_image_free(&img);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("image_parse: all checks passed\n");
    return 0;
}
