/* The sim's cuBLASLt (libcublasLt.so.13; sim/libs/cublas/README.md): handles,
 * matmul descriptors, matrix layouts, preferences, algorithms, heuristics
 * and cublasLtMatmul, which launches gemm.cu's kernels on the caller's
 * stream.
 *
 * Descriptor behaviour is NVIDIA's, observed by calling the real library on
 * the CPU (cuBLASLt 13.1.0 of the toolkit and 13.4.1 of the nvidia-cublas
 * wheel; sim/tests/lt_probe.c prints it, sim/tests/lt_descriptors.sh
 * compares the two libraries on every build):
 *  - every attribute has one size: Set and Get with any other size, a NULL
 *    buffer or an attribute the header does not name return
 *    CUBLAS_STATUS_INVALID_VALUE; Get with a NULL buffer and size 0 writes
 *    the size to sizeWritten (a NULL sizeWritten is allowed otherwise);
 *  - values are not checked when set (an epilogue of 12345 is kept);
 *  - the defaults: fill mode FULL, epilogue DEFAULT, the aux and bias data
 *    types -1, the scale type given at creation; a layout's batch count 1;
 *    a preference's reduction scheme mask 7 (all), minimum alignments 256,
 *    implementation mask all ones;
 *  - a bias or aux pointer stays set after the epilogue stops using it
 *    (set back to DEFAULT: Get still answers the pointer);
 *  - a layout is not checked at creation (ld < rows, an unknown type, 0
 *    rows: CUBLAS_STATUS_SUCCESS), only at cublasLtMatmul;
 *  - cublasLtMatmulDescDestroy(NULL) and the other Destroys succeed.
 * A descriptor lives in the caller's opaque struct (cublasLtMatmulDescInit
 * on the stack works as cublasLtMatmulDescCreate): nothing is allocated
 * beyond it. */
/* the API the headers declare has default visibility (SIMLIB_CFLAGS hides
 * the rest; the version script says which names are exported) */
#pragma GCC visibility push(default)
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#pragma GCC visibility pop
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "handle.h"
#include "simlib.h"

#define LT_LIB_NAME "libcublasLt.so.13"

extern const unsigned char gemm_image[];
static struct simlib_image image = SIMLIB_IMAGE_INIT(gemm_image, LT_LIB_NAME);

/* ---- attribute tables: size of each attribute (0: no such attribute) ---- */

/* cublasLtMatmulDescAttributes_t; sizes as the real library answers them */
static const unsigned char desc_sizes[] = {
    [CUBLASLT_MATMUL_DESC_COMPUTE_TYPE] = 4, [CUBLASLT_MATMUL_DESC_SCALE_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_POINTER_MODE] = 4, [CUBLASLT_MATMUL_DESC_TRANSA] = 4, [CUBLASLT_MATMUL_DESC_TRANSB] = 4,
    [CUBLASLT_MATMUL_DESC_TRANSC] = 4, [CUBLASLT_MATMUL_DESC_FILL_MODE] = 4, [CUBLASLT_MATMUL_DESC_EPILOGUE] = 4,
    [CUBLASLT_MATMUL_DESC_BIAS_POINTER] = 8, [CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE] = 8,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER] = 8, [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD] = 8,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE] = 8, [CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE] = 8,
    [CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET] = 4,
    [16] = 4,           /* not in the header; the real library answers it (int32_t, 0) */
    [CUBLASLT_MATMUL_DESC_A_SCALE_POINTER] = 8, [CUBLASLT_MATMUL_DESC_B_SCALE_POINTER] = 8,
    [CUBLASLT_MATMUL_DESC_C_SCALE_POINTER] = 8, [CUBLASLT_MATMUL_DESC_D_SCALE_POINTER] = 8,
    [CUBLASLT_MATMUL_DESC_AMAX_D_POINTER] = 8, [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER] = 8, [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER] = 8,
    [CUBLASLT_MATMUL_DESC_FAST_ACCUM] = 1, [CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE] = 4,
    [CUBLASLT_MATMUL_DESC_A_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_B_SCALE_MODE] = 4,
    [CUBLASLT_MATMUL_DESC_C_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_D_SCALE_MODE] = 4,
    [CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_D_OUT_SCALE_POINTER] = 8,
    [CUBLASLT_MATMUL_DESC_D_OUT_SCALE_MODE] = 4, [CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR] = 8,
};
static const unsigned char layout_sizes[] = {
    [CUBLASLT_MATRIX_LAYOUT_TYPE] = 4, [CUBLASLT_MATRIX_LAYOUT_ORDER] = 4, [CUBLASLT_MATRIX_LAYOUT_ROWS] = 8,
    [CUBLASLT_MATRIX_LAYOUT_COLS] = 8, [CUBLASLT_MATRIX_LAYOUT_LD] = 8, [CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT] = 4,
    [CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET] = 8, [CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET] = 8,
    [CUBLASLT_MATRIX_LAYOUT_BATCH_MODE] = 4,
};
static const unsigned char pref_sizes[] = {
    [CUBLASLT_MATMUL_PREF_SEARCH_MODE] = 4, [CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES] = 8,
    [CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK] = 4, [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES] = 4, [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES] = 4,
    [CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES] = 4, [CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT] = 4,
    [CUBLASLT_MATMUL_PREF_IMPL_MASK] = 8,
};
/* cublasLtMatmulAlgoConfigAttributes_t (header: int32/uint32, two uint16) */
static const unsigned char algo_sizes[] = {
    [CUBLASLT_ALGO_CONFIG_ID] = 4, [CUBLASLT_ALGO_CONFIG_TILE_ID] = 4, [CUBLASLT_ALGO_CONFIG_SPLITK_NUM] = 4,
    [CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME] = 4, [CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING] = 4,
    [CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION] = 4, [CUBLASLT_ALGO_CONFIG_STAGES_ID] = 4,
    [CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID] = 2, [CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID] = 2,
};
#define NELEM(a) (sizeof (a) / sizeof (a)[0])

/* An object in its opaque struct: a magic word, then each attribute at
 * the sum of the sizes before it. */
struct table { const unsigned char *size; unsigned n; uint32_t magic; };
static const struct table DESC = { desc_sizes, NELEM(desc_sizes), 0x53424d44 };        /* "DMBS" */
static const struct table LAYOUT = { layout_sizes, NELEM(layout_sizes), 0x53424c41 };
static const struct table PREF = { pref_sizes, NELEM(pref_sizes), 0x53425046 };
static const struct table ALGO = { algo_sizes, NELEM(algo_sizes), 0x5342414c };

static unsigned table_bytes(const struct table *t)
{
    unsigned n = 4;
    for (unsigned i = 0; i < t->n; i++)
        n += t->size[i];
    return n;
}

static unsigned char *slot(const struct table *t, void *obj, unsigned a)
{
    unsigned off = 4;
    for (unsigned i = 0; i < a; i++)
        off += t->size[i];
    return (unsigned char *)obj + off;
}

static int valid(const struct table *t, const void *obj)
{
    uint32_t m;
    if (!obj)
        return 0;
    memcpy(&m, obj, 4);
    return m == t->magic;
}

static void put(const struct table *t, void *obj, unsigned a, int64_t v)
{
    unsigned char *p = slot(t, obj, a);
    switch (t->size[a]) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* An integer attribute (sign-extended) or a pointer's bits. */
static int64_t get(const struct table *t, const void *obj, unsigned a)
{
    const unsigned char *p = slot(t, (void *)obj, a);
    switch (t->size[a]) {
    case 1: { int8_t x; memcpy(&x, p, 1); return x; }
    case 2: { int16_t x; memcpy(&x, p, 2); return x; }
    case 4: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
    }
}

static void *get_ptr(const struct table *t, const void *obj, unsigned a)
{
    void *p;
    memcpy(&p, slot(t, (void *)obj, a), sizeof p);
    return p;
}

static void init(const struct table *t, void *obj)
{
    memset(obj, 0, table_bytes(t));
    memcpy(obj, &t->magic, 4);
}

static cublasStatus_t attr_set(const struct table *t, void *obj, unsigned a, const void *buf, size_t size)
{
    if (!valid(t, obj) || a >= t->n || !t->size[a] || !buf || size != t->size[a])
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(slot(t, obj, a), buf, size);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t attr_get(const struct table *t, const void *obj, unsigned a, void *buf, size_t size,
                               size_t *written)
{
    if (!valid(t, obj) || a >= t->n || !t->size[a])
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!buf && size == 0 && written) {
        *written = t->size[a];
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || size != t->size[a])
        return CUBLAS_STATUS_INVALID_VALUE;
    memcpy(buf, slot(t, (void *)obj, a), size);
    if (written)
        *written = size;
    return CUBLAS_STATUS_SUCCESS;
}

_Static_assert(sizeof(cublasLtMatmulDescOpaque_t) >= 4 + 201, "desc fits its opaque struct");

/* ---- handles, versions, status names ---- */

static int lt_ok(cublasLtHandle_t h)
{
    return h && h->magic == SB_LT_MAGIC;
}

/* Needs a device: without one the real library returns
 * CUBLAS_STATUS_NOT_INITIALIZED (observed on a machine without a GPU). */
cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    int n = 0;
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (simlib_driver(LT_LIB_NAME) != 0 || simlib_drv.cuInit(0) != CUDA_SUCCESS ||
        simlib_drv.cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 1)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasLtContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = SB_LT_MAGIC;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

size_t CUBLASWINAPI cublasLtGetVersion(void)
{
    return CUBLAS_VERSION;
}

size_t CUBLASWINAPI cublasLtGetCudartVersion(void)
{
    return CUDART_VERSION;
}

cublasStatus_t CUBLASWINAPI cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; break;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; break;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* The names and sentences the real library gives (sim/tests/lt_probe.c prints them). */
static const struct { cublasStatus_t s; const char *name, *text; } statuses[] = {
    { CUBLAS_STATUS_SUCCESS, "CUBLAS_STATUS_SUCCESS", "success" },
    { CUBLAS_STATUS_NOT_INITIALIZED, "CUBLAS_STATUS_NOT_INITIALIZED", "the library was not initialized" },
    { CUBLAS_STATUS_ALLOC_FAILED, "CUBLAS_STATUS_ALLOC_FAILED", "the resource allocation failed" },
    { CUBLAS_STATUS_INVALID_VALUE, "CUBLAS_STATUS_INVALID_VALUE", "an unsupported value or parameter was passed to the function" },
    { CUBLAS_STATUS_ARCH_MISMATCH, "CUBLAS_STATUS_ARCH_MISMATCH", "the function requires an architectural feature absent from the device" },
    { CUBLAS_STATUS_MAPPING_ERROR, "CUBLAS_STATUS_MAPPING_ERROR", "an access to GPU memory space failed" },
    { CUBLAS_STATUS_EXECUTION_FAILED, "CUBLAS_STATUS_EXECUTION_FAILED", "the function failed to launch on the GPU" },
    { CUBLAS_STATUS_INTERNAL_ERROR, "CUBLAS_STATUS_INTERNAL_ERROR", "an internal operation failed" },
    { CUBLAS_STATUS_NOT_SUPPORTED, "CUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported" },
    { CUBLAS_STATUS_LICENSE_ERROR, "CUBLAS_STATUS_LICENSE_ERROR", "the license check failed" },
};

SIMLIB_HIDDEN const char *sb_status_name(cublasStatus_t s);
SIMLIB_HIDDEN const char *sb_status_name(cublasStatus_t s)
{
    for (size_t i = 0; i < NELEM(statuses); i++)
        if (statuses[i].s == s)
            return statuses[i].name;
    return "unrecognized status";
}

SIMLIB_HIDDEN const char *sb_status_string(cublasStatus_t s);
SIMLIB_HIDDEN const char *sb_status_string(cublasStatus_t s)
{
    for (size_t i = 0; i < NELEM(statuses); i++)
        if (statuses[i].s == s)
            return statuses[i].text;
    return "unrecognized status";
}

const char *CUBLASWINAPI cublasLtGetStatusName(cublasStatus_t status)
{
    return sb_status_name(status);
}

const char *CUBLASWINAPI cublasLtGetStatusString(cublasStatus_t status)
{
    return sb_status_string(status);
}

/* ---- matmul descriptors ---- */

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t matmulDesc, size_t size,
                                                            cublasComputeType_t computeType,
                                                            cudaDataType_t scaleType)
{
    if (!matmulDesc || size < table_bytes(&DESC))
        return matmulDesc ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_INVALID_VALUE;
    init(&DESC, matmulDesc);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, computeType);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, scaleType);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_FILL_MODE, CUBLAS_FILL_MODE_FULL);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_DEFAULT);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, -1);
    put(&DESC, matmulDesc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, -1);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
                                                     cublasComputeType_t computeType, cudaDataType_t scaleType)
{
    if (!matmulDesc)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t d = malloc(sizeof *d);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(d, sizeof *d, computeType, scaleType);
    *matmulDesc = d;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc)
{
    if (valid(&DESC, matmulDesc)) {
        memset(matmulDesc, 0, 4);
        free(matmulDesc);
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                           cublasLtMatmulDescAttributes_t attr, const void *buf,
                                                           size_t sizeInBytes)
{
    return attr_set(&DESC, matmulDesc, attr, buf, sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
                                                           cublasLtMatmulDescAttributes_t attr, void *buf,
                                                           size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(&DESC, matmulDesc, attr, buf, sizeInBytes, sizeWritten);
}

/* ---- matrix layouts ---- */

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t matLayout, size_t size,
                                                              cudaDataType type, uint64_t rows, uint64_t cols,
                                                              int64_t ld)
{
    if (!matLayout || size < table_bytes(&LAYOUT))
        return matLayout ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_INVALID_VALUE;
    init(&LAYOUT, matLayout);
    put(&LAYOUT, matLayout, CUBLASLT_MATRIX_LAYOUT_TYPE, type);
    put(&LAYOUT, matLayout, CUBLASLT_MATRIX_LAYOUT_ROWS, (int64_t)rows);
    put(&LAYOUT, matLayout, CUBLASLT_MATRIX_LAYOUT_COLS, (int64_t)cols);
    put(&LAYOUT, matLayout, CUBLASLT_MATRIX_LAYOUT_LD, ld);
    put(&LAYOUT, matLayout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, 1);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
                                                       uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!matLayout)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t l = malloc(sizeof *l);
    if (!l)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(l, sizeof *l, type, rows, cols, ld);
    *matLayout = l;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(const cublasLtMatrixLayout_t matLayout)
{
    if (valid(&LAYOUT, matLayout)) {
        memset(matLayout, 0, 4);
        free(matLayout);
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
                                                             cublasLtMatrixLayoutAttribute_t attr, const void *buf,
                                                             size_t sizeInBytes)
{
    return attr_set(&LAYOUT, matLayout, attr, buf, sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
                                                             cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                             size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(&LAYOUT, matLayout, attr, buf, sizeInBytes, sizeWritten);
}

/* ---- preferences ---- */

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t pref, size_t size)
{
    if (!pref || size < table_bytes(&PREF))
        return pref ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_INVALID_VALUE;
    init(&PREF, pref);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, CUBLASLT_REDUCTION_SCHEME_MASK);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, 256);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, 256);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, 256);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, 256);
    put(&PREF, pref, CUBLASLT_MATMUL_PREF_IMPL_MASK, -1);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref)
{
    if (!pref)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t p = malloc(sizeof *p);
    if (!p)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(p, sizeof *p);
    *pref = p;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref)
{
    if (valid(&PREF, pref)) {
        memset(pref, 0, 4);
        free(pref);
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes)
{
    return attr_set(&PREF, pref, attr, buf, sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 void *buf, size_t sizeInBytes, size_t *sizeWritten)
{
    return attr_get(&PREF, pref, attr, buf, sizeInBytes, sizeWritten);
}

/* ---- the plan of one matmul ---- */

struct mat {
    int type, row, batch_mode;
    int64_t rows, cols, ld, batch, stride;
};

static int read_layout(cublasLtMatrixLayout_t l, struct mat *m)
{
    if (!valid(&LAYOUT, l))
        return -1;
    m->type = (int)get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_TYPE);
    int order = (int)get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_ORDER);
    m->rows = get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_ROWS);
    m->cols = get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_COLS);
    m->ld = get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_LD);
    m->batch = get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT);
    m->stride = get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
    m->batch_mode = (int)get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
    if (order != CUBLASLT_ORDER_COL && order != CUBLASLT_ORDER_ROW)
        return -2;
    m->row = order == CUBLASLT_ORDER_ROW;
    if (get(&LAYOUT, l, CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET) != 0 || !simlib_type_size(m->type))
        return -2;
    if (m->rows < 0 || m->cols < 0 || m->batch < 1 || m->ld < (m->row ? m->cols : m->rows) || m->ld < 1)
        return -1;
    return 0;
}

static int supported_epilogue(int64_t e)
{
    switch (e) {
    case CUBLASLT_EPILOGUE_DEFAULT: case CUBLASLT_EPILOGUE_RELU: case CUBLASLT_EPILOGUE_BIAS:
    case CUBLASLT_EPILOGUE_RELU_BIAS: case CUBLASLT_EPILOGUE_GELU: case CUBLASLT_EPILOGUE_GELU_BIAS:
    case CUBLASLT_EPILOGUE_GELU_AUX: case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
        return 1;
    default:
        return 0;
    }
}

/* g from the descriptor and layouts: CUBLAS_STATUS_SUCCESS, or the status
 * the call returns, with *why saying what the sim does not simulate (for
 * CUBLAS_STATUS_NOT_SUPPORTED). */
static cublasStatus_t plan(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                           cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld, struct sb_gemm *g, int *arrays,
                           const char **why)
{
    struct mat a, b, c, d;
    *why = NULL;
    if (!valid(&DESC, desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    int ra = read_layout(la, &a), rb = read_layout(lb, &b), rc = read_layout(lc, &c), rd = read_layout(ld, &d);
    if (ra == -1 || rb == -1 || rc == -1 || rd == -1)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (ra || rb || rc || rd) {
        *why = "a matrix layout of this type or order (planar complex, an ordering other than COL or ROW)";
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    memset(g, 0, sizeof *g);
    int64_t ep = get(&DESC, desc, CUBLASLT_MATMUL_DESC_EPILOGUE);
    g->op_a = (int)get(&DESC, desc, CUBLASLT_MATMUL_DESC_TRANSA);
    g->op_b = (int)get(&DESC, desc, CUBLASLT_MATMUL_DESC_TRANSB);
    if ((g->op_a != CUBLAS_OP_N && g->op_a != CUBLAS_OP_T && g->op_a != CUBLAS_OP_C) ||
        (g->op_b != CUBLAS_OP_N && g->op_b != CUBLAS_OP_T && g->op_b != CUBLAS_OP_C) ||
        get(&DESC, desc, CUBLASLT_MATMUL_DESC_TRANSC) != CUBLAS_OP_N)
        return CUBLAS_STATUS_INVALID_VALUE;
    g->m = g->op_a == CUBLAS_OP_N ? a.rows : a.cols;
    g->k = g->op_a == CUBLAS_OP_N ? a.cols : a.rows;
    int64_t kb = g->op_b == CUBLAS_OP_N ? b.rows : b.cols;
    g->n = g->op_b == CUBLAS_OP_N ? b.cols : b.rows;
    if (kb != g->k || d.rows != g->m || d.cols != g->n || c.rows != g->m || c.cols != g->n)
        return CUBLAS_STATUS_INVALID_VALUE;
    g->batch = d.batch;
    if (a.batch != d.batch || b.batch != d.batch || c.batch != d.batch)
        return CUBLAS_STATUS_INVALID_VALUE;
    *arrays = d.batch_mode == CUBLASLT_BATCH_MODE_POINTER_ARRAY;
    if (a.batch_mode != d.batch_mode || b.batch_mode != d.batch_mode || c.batch_mode != d.batch_mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!supported_epilogue(ep) || (*arrays && ep != CUBLASLT_EPILOGUE_DEFAULT)) {
        *why = "this epilogue (BGRAD, DRELU, DGELU, RELU_AUX, or one with a pointer-array batch)";
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    for (int s = CUBLASLT_MATMUL_DESC_A_SCALE_POINTER; s <= CUBLASLT_MATMUL_DESC_AMAX_D_POINTER; s++)
        if (get_ptr(&DESC, desc, (unsigned)s)) {
            *why = "scaled matmuls (CUBLASLT_MATMUL_DESC_*_SCALE_POINTER, AMAX_D)";
            return CUBLAS_STATUS_NOT_SUPPORTED;
        }
    int mode = (int)get(&DESC, desc, CUBLASLT_MATMUL_DESC_POINTER_MODE);
    if (mode != CUBLASLT_POINTER_MODE_HOST && mode != CUBLASLT_POINTER_MODE_DEVICE) {
        *why = "vector pointer modes (CUBLASLT_POINTER_MODE_DEVICE_VECTOR, ALPHA_DEVICE_VECTOR_*)";
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    g->device_scalars = mode == CUBLASLT_POINTER_MODE_DEVICE;
    g->type_a = a.type, g->type_b = b.type, g->type_c = c.type, g->type_d = d.type;
    g->row_a = a.row, g->row_b = b.row, g->row_c = c.row, g->row_d = d.row;
    g->lda = a.ld, g->ldb = b.ld, g->ldc = c.ld, g->ldd = d.ld;
    g->stride_a = a.stride, g->stride_b = b.stride, g->stride_c = c.stride, g->stride_d = d.stride;
    g->type_scale = (int)get(&DESC, desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE);
    if (!simlib_type_size(g->type_scale)) {
        *why = "this scale type";
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    g->epilogue = (int)ep;
    int64_t bt = get(&DESC, desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
    g->type_bias = bt == -1 ? d.type : (int)bt;
    g->bias_stride = get(&DESC, desc, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE);
    int64_t at = get(&DESC, desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE);
    g->type_aux = at == -1 ? d.type : (int)at;
    g->aux_ld = get(&DESC, desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD);
    g->aux_stride = get(&DESC, desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE);
    if (!simlib_type_size(g->type_bias) || !simlib_type_size(g->type_aux)) {
        *why = "this bias or aux data type";
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if ((ep & CUBLASLT_EPILOGUE_BIAS) && !get_ptr(&DESC, desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((ep & 128) && (!get_ptr(&DESC, desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER) || g->aux_ld < g->m))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

static void not_simulated(const char *why)
{
    static atomic_flag said[8];
    static const char *whys[8];
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    unsigned i;
    pthread_mutex_lock(&lock);
    for (i = 0; i < 8 && whys[i] && whys[i] != why; i++)
        ;
    if (i < 8 && !whys[i])
        whys[i] = why;
    pthread_mutex_unlock(&lock);
    char text[256];
    snprintf(text, sizeof text, "cublasLtMatmul: %s is not simulated: CUBLAS_STATUS_NOT_SUPPORTED", why);
    if (i < 8)
        simlib_note_once(&said[i], LT_LIB_NAME, text);
}

#define ALGO_MAGIC 0x53494d53424c4153ull        /* data[0] of the sim's one algorithm */

static void fill_algo(cublasLtMatmulAlgo_t *algo, int id)
{
    memset(algo, 0, sizeof *algo);
    init(&ALGO, &algo->data[1]);
    algo->data[0] = ALGO_MAGIC;
    put(&ALGO, &algo->data[1], CUBLASLT_ALGO_CONFIG_ID, id);
    put(&ALGO, &algo->data[1], CUBLASLT_ALGO_CONFIG_SPLITK_NUM, 1);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t lightHandle,
                                                           cublasLtMatmulDesc_t operationDesc,
                                                           cublasLtMatrixLayout_t Adesc,
                                                           cublasLtMatrixLayout_t Bdesc,
                                                           cublasLtMatrixLayout_t Cdesc,
                                                           cublasLtMatrixLayout_t Ddesc,
                                                           cublasLtMatmulPreference_t preference,
                                                           int requestedAlgoCount,
                                                           cublasLtMatmulHeuristicResult_t heuristicResultsArray[],
                                                           int *returnAlgoCount)
{
    struct sb_gemm g;
    int arrays;
    const char *why;
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1 || !heuristicResultsArray || !returnAlgoCount || !valid(&PREF, preference))
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    cublasStatus_t s = plan(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &g, &arrays, &why);
    if (s != CUBLAS_STATUS_SUCCESS) {
        if (why)
            not_simulated(why);
        return s;
    }
    memset(&heuristicResultsArray[0], 0, sizeof heuristicResultsArray[0]);
    fill_algo(&heuristicResultsArray[0].algo, 0);
    heuristicResultsArray[0].workspaceSize = 0;         /* the sim's kernels need none */
    heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
    heuristicResultsArray[0].wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetIds(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                     cudaDataType_t scaleType, cudaDataType_t Atype,
                                                     cudaDataType_t Btype, cudaDataType_t Ctype,
                                                     cudaDataType_t Dtype, int requestedAlgoCount,
                                                     int algoIdsArray[], int *returnAlgoCount)
{
    (void)computeType, (void)scaleType, (void)Atype, (void)Btype, (void)Ctype, (void)Dtype;
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount < 1 || !algoIdsArray || !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    algoIdsArray[0] = 0;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoInit(cublasLtHandle_t lightHandle, cublasComputeType_t computeType,
                                                   cudaDataType_t scaleType, cudaDataType_t Atype,
                                                   cudaDataType_t Btype, cudaDataType_t Ctype, cudaDataType_t Dtype,
                                                   int algoId, cublasLtMatmulAlgo_t *algo)
{
    (void)computeType, (void)scaleType, (void)Atype, (void)Btype, (void)Ctype, (void)Dtype;
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo || algoId != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    fill_algo(algo, algoId);
    return CUBLAS_STATUS_SUCCESS;
}

static int algo_ok(const cublasLtMatmulAlgo_t *algo)
{
    return algo && algo->data[0] == ALGO_MAGIC && valid(&ALGO, &algo->data[1]);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoCheck(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,
                                                    cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc,
                                                    cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
                                                    const cublasLtMatmulAlgo_t *algo,
                                                    cublasLtMatmulHeuristicResult_t *result)
{
    struct sb_gemm g;
    int arrays;
    const char *why;
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo_ok(algo) || !result)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t s = plan(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &g, &arrays, &why);
    if (s != CUBLAS_STATUS_SUCCESS)
        return s;
    memset(result, 0, sizeof *result);
    result->algo = *algo;
    result->state = CUBLAS_STATUS_SUCCESS;
    result->wavesCount = 1.0f;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoConfigSetAttribute(cublasLtMatmulAlgo_t *algo,
                                                                 cublasLtMatmulAlgoConfigAttributes_t attr,
                                                                 const void *buf, size_t sizeInBytes)
{
    if (!algo_ok(algo))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (attr == CUBLASLT_ALGO_CONFIG_ID)
        return CUBLAS_STATUS_INVALID_VALUE;             /* read-only (cublasLt.h) */
    return attr_set(&ALGO, &algo->data[1], attr, buf, sizeInBytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t *algo,
                                                                 cublasLtMatmulAlgoConfigAttributes_t attr,
                                                                 void *buf, size_t sizeInBytes,
                                                                 size_t *sizeWritten)
{
    if (!algo_ok(algo))
        return CUBLAS_STATUS_INVALID_VALUE;
    return attr_get(&ALGO, &algo->data[1], attr, buf, sizeInBytes, sizeWritten);
}

/* ---- the matmul ---- */

static cublasStatus_t launched(CUresult r)
{
    return r == CUDA_SUCCESS ? CUBLAS_STATUS_SUCCESS
         : r == CUDA_ERROR_NOT_INITIALIZED ? CUBLAS_STATUS_NOT_INITIALIZED : CUBLAS_STATUS_EXECUTION_FAILED;
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                           const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                           const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                                           const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                           cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                                           void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
    struct sb_gemm g;
    int arrays;
    const char *why;
    (void)workspace, (void)workspaceSizeInBytes;        /* the sim's kernels need none */
    if (!lt_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (algo && !algo_ok(algo))
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t s = plan(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &g, &arrays, &why);
    if (s != CUBLAS_STATUS_SUCCESS) {
        if (why)
            not_simulated(why);
        return s;
    }
    if (!alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!g.device_scalars) {
        /* host pointer mode: read now, as NVIDIA's library reads them at the call */
        simlib_load(alpha, g.type_scale, 0, g.alpha);
        simlib_load(beta, g.type_scale, 0, g.beta);
        alpha = beta = NULL;
    }
    if (g.m == 0 || g.n == 0)
        return CUBLAS_STATUS_SUCCESS;
    const void *bias = get_ptr(&DESC, computeDesc, CUBLASLT_MATMUL_DESC_BIAS_POINTER);
    void *aux = get_ptr(&DESC, computeDesc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER);
    if (!(g.epilogue & CUBLASLT_EPILOGUE_BIAS))
        bias = NULL;                                    /* kept in the descriptor, not used */
    if (!(g.epilogue & 128))
        aux = NULL;
    if (simlib_driver(LT_LIB_NAME) != 0)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned long long threads = (unsigned long long)(g.m * g.n * g.batch);
    CUstream st = (CUstream)stream;
    if (arrays) {
        void *params[] = { &g, &A, &B, &C, &D, &alpha, &beta };
        return launched(simlib_launch(&image, "simblas_gemm_batched", threads, st, params));
    }
    void *params[] = { &g, &A, &B, &C, &D, &bias, &aux, &alpha, &beta };
    return launched(simlib_launch(&image, "simblas_gemm", threads, st, params));
}
