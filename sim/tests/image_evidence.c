/* image_evidence: what the image reader (sim/driver/image.c, ptxflow.c)
 * learns from real toolchain output about pointer parameters and variables:
 *  - PTX from nvcc: parameters whose value the body uses as an address
 *    (SIM_PARAM_PTR_USE), not ints, not a struct passed by value;
 *  - a cubin ptxas made from `.ptr` declarations (Triton's):
 *    SIM_PARAM_PTR_DECL for global and generic pointers only;
 *  - nvcc's cubin: no pointer evidence (the mangled name has it: operands.c);
 *  - __device__ / __constant__ / __managed__ variables with size and initial
 *    bytes, in the cubin, the PTX and the fatbin. */
#include "image.h"

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

static void load(const char *file, struct sim_image *img)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", IMAGE_DIR, file);
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *d = calloc(1, (size_t)n + 1);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(2); }
    fclose(f);
    if (sim_image_parse(d, (size_t)n, img) != 0) { fprintf(stderr, "%s: not parsed\n", file); exit(2); }
    free(d);
}

static void flags(const char *what, const struct sim_image *img, const char *kernel, unsigned n,
                  const unsigned char *want)
{
    const struct sim_kernel_info *k = sim_image_find(img, kernel);
    CHECK(k && k->nparams == n, "%s: %s with %u parameters", what, kernel, n);
    if (!k || k->nparams != n) return;
    for (unsigned i = 0; i < n; i++) {
        unsigned got = k->ptr ? k->ptr[i] : 0;
        CHECK(got == want[i], "%s: %s parameter %u: flags %#x, expected %#x", what, kernel, i, got, want[i]);
    }
}

static void vars(const char *what, const struct sim_image *img)
{
    static const int array[4] = { 1, 2, 3, 4 }, cst[4] = { 7, 8, 9, 10 };
    static const float init = 3.5f;
    const struct sim_var *v = sim_image_var(img, "ev_zero");
    CHECK(v && v->size == 64 && !v->managed, "%s: ev_zero, 64 bytes", what);
    if (v && v->init)
        for (size_t i = 0; i < v->size; i++) CHECK(v->init[i] == 0, "%s: ev_zero zeroed", what);
    v = sim_image_var(img, "ev_init");
    CHECK(v && v->size == 4 && v->init && !memcmp(v->init, &init, 4), "%s: ev_init = 3.5f", what);
    v = sim_image_var(img, "ev_array");
    CHECK(v && v->size == 16 && v->init && !memcmp(v->init, array, 16), "%s: ev_array = {1,2,3,4}", what);
    v = sim_image_var(img, "ev_const");
    CHECK(v && v->size == 16 && v->init && !memcmp(v->init, cst, 16), "%s: __constant__ ev_const", what);
    v = sim_image_var(img, "ev_managed");
    CHECK(v && v->size == 4 && v->managed, "%s: ev_managed is __managed__", what);
    CHECK(!sim_image_var(img, "ev_missing"), "%s: no such variable", what);
}

int main(void)
{
    struct sim_image img;
    const unsigned char U = SIM_PARAM_PTR_USE, D = SIM_PARAM_PTR_DECL;

    load("evidence.ptx", &img);
    flags("nvcc PTX", &img, "_Z9ev_kernelPfi7ev_pairPKd", 4, (const unsigned char[]){ U, 0, 0, U });
    flags("nvcc PTX", &img, "ev_cfunc", 3, (const unsigned char[]){ U, 0, 0 });
    vars("nvcc PTX", &img);
    sim_image_free(&img);

    load("evidence.cubin", &img);
    flags("nvcc cubin", &img, "_Z9ev_kernelPfi7ev_pairPKd", 4, (const unsigned char[]){ 0, 0, 0, 0 });
    vars("nvcc cubin", &img);
    sim_image_free(&img);

    load("evidence.fatbin", &img);
    vars("nvcc fatbin", &img);
    sim_image_free(&img);

    load("evidence_ptr.cubin", &img);
    flags("ptxas cubin of .ptr parameters", &img, "ev_ptr", 7, (const unsigned char[]){ D, 0, 0, D, 0, 0, 0 });
    sim_image_free(&img);

    load("evidence_ptr.ptx", &img);
    flags("PTX .ptr parameters", &img, "ev_ptr", 7, (const unsigned char[]){ D, 0, 0, D, 0, 0, 0 });
    sim_image_free(&img);

    if (failures) {
        fprintf(stderr, "image_evidence: %d check(s) failed\n", failures);
        return 1;
    }
    printf("image_evidence: all checks passed\n");
    return 0;
}
