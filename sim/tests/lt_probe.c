/* lt_probe LIB: what a cuBLASLt library's descriptor, layout and preference
 * calls answer, one line each, run on the CPU (no GPU needed): the real
 * libcublasLt.so.13 and the sim's print the same (lt_descriptors.sh).  The
 * library is opened with dlopen(RTLD_LOCAL) and every function found with
 * dlsym, so both can be probed by one binary. */
#include <cublasLt.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FNS(X) X(cublasLtMatmulDescCreate) X(cublasLtMatmulDescDestroy) X(cublasLtMatmulDescSetAttribute)      \
    X(cublasLtMatmulDescGetAttribute) X(cublasLtMatrixLayoutCreate) X(cublasLtMatrixLayoutDestroy)               \
    X(cublasLtMatrixLayoutSetAttribute) X(cublasLtMatrixLayoutGetAttribute) X(cublasLtMatmulPreferenceCreate)   \
    X(cublasLtMatmulPreferenceDestroy) X(cublasLtMatmulPreferenceGetAttribute) X(cublasLtGetStatusName)         \
    X(cublasLtGetStatusString) X(cublasLtGetProperty) X(cublasLtMatmulDescInit_internal)
#define DECL(n) static __typeof__(&n) p_##n;
FNS(DECL)

static void hex(const char *what, int s, const void *b, size_t n)
{
    printf("%s -> %d", what, s);
    if (s == 0 && b) {
        printf(" =");
        for (size_t i = 0; i < n; i++)
            printf("%02x", ((const unsigned char *)b)[i]);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h) {
        fprintf(stderr, "lt_probe: %s\n", dlerror());
        return 2;
    }
#define BIND(n)                                                       \
    if (!(*(void **)&p_##n = dlsym(h, #n))) {                         \
        fprintf(stderr, "lt_probe: no %s\n", #n);                     \
        return 2;                                                     \
    }
    FNS(BIND)
    char what[128];
    unsigned char buf[64];
    size_t w;
    /* every attribute: its size (a NULL buffer and size 0), its default, a
     * Get of another size */
    cublasLtMatmulDesc_t d;
    hex("DescCreate", p_cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), NULL, 0);
    for (int a = 0; a < 39; a++) {
        w = 999;
        int s = p_cublasLtMatmulDescGetAttribute(d, a, NULL, 0, &w);
        snprintf(what, sizeof what, "desc %d size", a);
        hex(what, s, NULL, 0);
        if (s)
            continue;
        printf("  = %zu\n", w);
        memset(buf, 0xab, sizeof buf);
        snprintf(what, sizeof what, "desc %d default", a);
        hex(what, p_cublasLtMatmulDescGetAttribute(d, a, buf, w, NULL), buf, w);
        snprintf(what, sizeof what, "desc %d get with size+1", a);
        hex(what, p_cublasLtMatmulDescGetAttribute(d, a, buf, w + 1, &w), NULL, 0);
    }
    /* a bias pointer outlives the epilogue that used it */
    void *bias = (void *)0x1234, *got = NULL;
    uint32_t ep = CUBLASLT_EPILOGUE_BIAS;
    hex("set epilogue BIAS", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep), NULL, 0);
    hex("set bias", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), NULL, 0);
    ep = CUBLASLT_EPILOGUE_DEFAULT;
    hex("set epilogue DEFAULT", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep),
        NULL, 0);
    hex("bias after DEFAULT", p_cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &got, sizeof got, &w),
        &got, sizeof got);
    int32_t i32 = 12345;
    hex("set epilogue 12345", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &i32, 4), NULL, 0);
    hex("set bias of 4 bytes", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &i32, 4), NULL, 0);
    hex("set NULL buffer", p_cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, NULL, 4), NULL, 0);
    hex("set attribute 9", p_cublasLtMatmulDescSetAttribute(d, 9, &i32, 4), NULL, 0);
    hex("get NULL buffer size 4", p_cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, NULL, 4, &w), NULL, 0);
    hex("get size 0 no sizeWritten", p_cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, NULL, 0, NULL),
        NULL, 0);
    hex("get NULL descriptor", p_cublasLtMatmulDescGetAttribute(NULL, CUBLASLT_MATMUL_DESC_TRANSA, &i32, 4, &w), NULL, 0);
    hex("set NULL descriptor", p_cublasLtMatmulDescSetAttribute(NULL, CUBLASLT_MATMUL_DESC_TRANSA, &i32, 4), NULL, 0);
    hex("DescCreate NULL", p_cublasLtMatmulDescCreate(NULL, CUBLAS_COMPUTE_32F, CUDA_R_32F), NULL, 0);
    hex("DescDestroy NULL", p_cublasLtMatmulDescDestroy(NULL), NULL, 0);
    hex("DescDestroy", p_cublasLtMatmulDescDestroy(d), NULL, 0);
    cublasLtMatmulDescOpaque_t opaque;
    hex("DescInit on the stack", p_cublasLtMatmulDescInit_internal(&opaque, sizeof opaque, CUBLAS_COMPUTE_64F,
                                                                   CUDA_R_64F), NULL, 0);
    hex("its scale type", p_cublasLtMatmulDescGetAttribute(&opaque, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &i32, 4, &w),
        &i32, 4);
    /* layouts */
    cublasLtMatrixLayout_t l;
    hex("LayoutCreate 16F 4x5 ld 4", p_cublasLtMatrixLayoutCreate(&l, CUDA_R_16F, 4, 5, 4), NULL, 0);
    for (int a = 0; a < 10; a++) {
        w = 999;
        int s = p_cublasLtMatrixLayoutGetAttribute(l, a, NULL, 0, &w);
        snprintf(what, sizeof what, "layout %d size", a);
        hex(what, s, NULL, 0);
        if (s)
            continue;
        printf("  = %zu\n", w);
        memset(buf, 0xab, sizeof buf);
        snprintf(what, sizeof what, "layout %d value", a);
        hex(what, p_cublasLtMatrixLayoutGetAttribute(l, a, buf, w, NULL), buf, w);
    }
    cublasLtMatrixLayout_t l2;
    hex("LayoutCreate ld < rows", p_cublasLtMatrixLayoutCreate(&l2, CUDA_R_16F, 4, 5, 2), NULL, 0);
    p_cublasLtMatrixLayoutDestroy(l2);
    hex("LayoutCreate type 1234", p_cublasLtMatrixLayoutCreate(&l2, 1234, 4, 5, 4), NULL, 0);
    p_cublasLtMatrixLayoutDestroy(l2);
    hex("layout set LD of 4 bytes", p_cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_LD, &i32, 4), NULL, 0);
    i32 = 99;
    hex("layout set ORDER 99", p_cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &i32, 4), NULL, 0);
    hex("LayoutDestroy", p_cublasLtMatrixLayoutDestroy(l), NULL, 0);
    /* preferences */
    cublasLtMatmulPreference_t p;
    hex("PreferenceCreate", p_cublasLtMatmulPreferenceCreate(&p), NULL, 0);
    for (int a = 0; a < 13; a++) {
        w = 999;
        int s = p_cublasLtMatmulPreferenceGetAttribute(p, a, NULL, 0, &w);
        snprintf(what, sizeof what, "preference %d size", a);
        hex(what, s, NULL, 0);
        if (s)
            continue;
        printf("  = %zu\n", w);
        memset(buf, 0xab, sizeof buf);
        snprintf(what, sizeof what, "preference %d default", a);
        hex(what, p_cublasLtMatmulPreferenceGetAttribute(p, a, buf, w, NULL), buf, w);
    }
    hex("PreferenceDestroy", p_cublasLtMatmulPreferenceDestroy(p), NULL, 0);
    /* status names and sentences */
    for (int s = 0; s <= 16; s++)
        printf("status %d: %s / %s\n", s, p_cublasLtGetStatusName(s), p_cublasLtGetStatusString(s));
    int v = -1;
    hex("GetProperty(MAJOR_VERSION)", p_cublasLtGetProperty(MAJOR_VERSION, &v), &v, sizeof v);
    return 0;
}
