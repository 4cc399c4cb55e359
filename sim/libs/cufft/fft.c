/* The sim's cuFFT (libcufft.so.12, and CUDA 12's libcufft.so.11 from the
 * same source; sim/libs/cufft/README.md): plans (1d, 2d, 3d, many, the _64
 * and Xt forms PyTorch and JAX use), their device, stream and work area,
 * the size queries, and execution: C2C/R2C/C2R in single and double
 * precision (cufftExec*), and in half and bfloat16 through cufftXtExec.
 * A transform runs as one kernel launch per axis on the plan's stream
 * (fft.cu, fft_hd.h), whose host twin computes on the device memory: the
 * sim's fault model decides every access.  Multi-GPU plans (cufftXtSetGPUs,
 * the descriptor calls), callbacks and plan properties are the generated
 * stubs: one line naming the call, then CUFFT_NOT_SUPPORTED.
 *
 * Where cuFFT's documentation says what a call does, the sim does that
 * (cuFFT API reference: basic plans, extensible plans, work area, execution,
 * cufftSetStream); what it leaves open is marked "not documented" below and
 * chosen here. */
/* the API the headers declare has default visibility (SIMLIB_CFLAGS hides
 * the rest; the version script says which names are exported) */
#pragma GCC visibility push(default)
#include <cufft.h>
#include <cufftXt.h>
#pragma GCC visibility pop
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fft_hd.h"
#include "simlib.h"

#define FFT_LIB_NAME "libcufft.so.12"

extern const unsigned char fft_image[] SIMLIB_HIDDEN;
static struct simlib_image image = SIMLIB_IMAGE_INIT(fft_image, FFT_LIB_NAME);

/* A plan: what cufftCreate makes and cufftMakePlan* describes. */
struct plan {
    int made;                   /* a cufftMakePlan* succeeded */
    int auto_alloc;             /* cufftSetAutoAllocation (default 1) */
    int device;                 /* current at cufftMakePlan*: the plan's GPU */
    CUcontext ctx;
    cudaStream_t stream;        /* cufftSetStream; NULL: the default stream, in ctx */
    void *work;                 /* cufftSetWorkArea's, or own */
    CUdeviceptr own;            /* auto-allocated at make time on the plan's device */
    size_t work_size;
    int rank;
    int64_t n[SIMFFT_MAXRANK], batch;
    int32_t kind, itype, otype;
    int basic_in, basic_out;    /* inembed / onembed NULL: the basic layout (resolved at execution) */
    struct simfft_layout in, out;
};

/* Plans are numbered from 1 (cufftHandle is an int); a destroyed plan's
 * number is used again. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan **plans;
static int nplans;

static struct plan *get(cufftHandle h)
{
    return h >= 1 && h <= nplans ? plans[h - 1] : NULL;
}

cufftResult CUFFTAPI cufftCreate(cufftHandle *handle)
{
    if (!handle)
        return CUFFT_INVALID_VALUE;
    struct plan *p = calloc(1, sizeof *p);
    if (!p)
        return CUFFT_ALLOC_FAILED;
    p->auto_alloc = 1;
    pthread_mutex_lock(&lock);
    int i = 0;
    while (i < nplans && plans[i])
        i++;
    if (i == nplans) {
        struct plan **np = nplans < INT_MAX / 2 ? realloc(plans, (size_t)(nplans ? 2 * nplans : 16) * sizeof *np) : NULL;
        if (!np) {
            pthread_mutex_unlock(&lock);
            free(p);
            return CUFFT_ALLOC_FAILED;
        }
        memset(np + nplans, 0, (size_t)(nplans ? nplans : 16) * sizeof *np);
        plans = np;
        nplans = nplans ? 2 * nplans : 16;
    }
    plans[i] = p;
    pthread_mutex_unlock(&lock);
    *handle = i + 1;
    return CUFFT_SUCCESS;
}

/* Frees the plan's own work area (its device's memory: the driver frees it
 * whatever context is current). */
static void drop_own(struct plan *p)
{
    if (p->own) {
        if (p->work == (void *)(uintptr_t)p->own)
            p->work = NULL;
        simlib_drv.cuMemFree(p->own);
        p->own = 0;
    }
}

cufftResult CUFFTAPI cufftDestroy(cufftHandle plan)
{
    pthread_mutex_lock(&lock);
    struct plan *p = get(plan);
    if (p)
        plans[plan - 1] = NULL;
    pthread_mutex_unlock(&lock);
    if (!p)
        return CUFFT_INVALID_PLAN;
    drop_own(p);
    free(p);
    return CUFFT_SUCCESS;
}

cufftResult CUFFTAPI cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    pthread_mutex_lock(&lock);
    struct plan *p = get(plan);
    if (p)
        p->stream = stream;
    pthread_mutex_unlock(&lock);
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

/* "must be called after cufftCreate and before a plan is made" (cuFFT
 * documentation): it decides whether cufftMakePlan* allocates. */
cufftResult CUFFTAPI cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    pthread_mutex_lock(&lock);
    struct plan *p = get(plan);
    if (p)
        p->auto_alloc = autoAllocate != 0;
    pthread_mutex_unlock(&lock);
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

/* "overrides the work area pointer associated with a plan. If the work area
 * was auto-allocated, cuFFT frees the auto-allocated space." */
cufftResult CUFFTAPI cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    pthread_mutex_lock(&lock);
    struct plan *p = get(plan);
    if (p) {
        drop_own(p);
        p->work = workArea;
    }
    pthread_mutex_unlock(&lock);
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftGetSize(cufftHandle plan, size_t *workSize)
{
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    pthread_mutex_lock(&lock);
    struct plan *p = get(plan);
    if (p)
        *workSize = p->work_size;
    pthread_mutex_unlock(&lock);
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

cufftResult CUFFTAPI cufftGetVersion(int *version)
{
    if (!version)
        return CUFFT_INVALID_VALUE;
    *version = CUFFT_VERSION;
    return CUFFT_SUCCESS;
}

cufftResult CUFFTAPI cufftGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUFFT_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUFFT_VER_MAJOR; return CUFFT_SUCCESS;
    case MINOR_VERSION: *value = CUFFT_VER_MINOR; return CUFFT_SUCCESS;
    case PATCH_LEVEL: *value = CUFFT_VER_PATCH; return CUFFT_SUCCESS;
    default: return CUFFT_INVALID_TYPE;
    }
}

/* ---- describing a plan */

/* The input and output types of a cufftType. */
static int legacy_types(cufftType t, int *itype, int *otype)
{
    switch (t) {
    case CUFFT_C2C: *itype = CUDA_C_32F, *otype = CUDA_C_32F; return 1;
    case CUFFT_R2C: *itype = CUDA_R_32F, *otype = CUDA_C_32F; return 1;
    case CUFFT_C2R: *itype = CUDA_C_32F, *otype = CUDA_R_32F; return 1;
    case CUFFT_Z2Z: *itype = CUDA_C_64F, *otype = CUDA_C_64F; return 1;
    case CUFFT_D2Z: *itype = CUDA_R_64F, *otype = CUDA_C_64F; return 1;
    case CUFFT_Z2D: *itype = CUDA_C_64F, *otype = CUDA_R_64F; return 1;
    default: return 0;
    }
}

/* The complex type of a type's precision (0: none cuFFT computes in). */
static int complex_of(int t)
{
    switch (t) {
    case CUDA_R_16F: case CUDA_C_16F: return CUDA_C_16F;
    case CUDA_R_16BF: case CUDA_C_16BF: return CUDA_C_16BF;
    case CUDA_R_32F: case CUDA_C_32F: return CUDA_C_32F;
    case CUDA_R_64F: case CUDA_C_64F: return CUDA_C_64F;
    default: return 0;
    }
}

/* The default layout of an array of the plan (cuFFT documentation, "Data
 * Layout"; an embed of NULL "is equivalent to passing n"): n, the last
 * axis n / 2 + 1 on the complex side of a real transform, and padded to
 * 2 (n / 2 + 1) reals on the real side of an in-place one. */
static void basic_layout(const struct plan *p, int complex_side, int in_place, struct simfft_layout *y)
{
    int64_t last = p->n[p->rank - 1];
    y->dist = 1;
    for (int a = 0; a < p->rank; a++) {
        y->embed[a] = p->n[a];
        if (a == p->rank - 1 && p->kind != SIMFFT_C2C)
            y->embed[a] = complex_side ? last / 2 + 1 : in_place ? 2 * (last / 2 + 1) : last;
        y->dist *= y->embed[a];
    }
    y->stride = 1;
}

/* The passes of p (fft_hd.h), with their number; the first pass reads the
 * input, the rest work where they write (the output; for C2R the input,
 * which a multi-dimensional C2R transform overwrites: cuFFT documentation,
 * "Fourier Transform Types"). */
static int passes(const struct plan *p, int sign, struct simfft_pass out[SIMFFT_MAXRANK])
{
    int r = p->rank;
    for (int i = 0; i < r; i++) {
        struct simfft_pass *q = &out[i];
        memset(q, 0, sizeof *q);
        q->rank = r;
        /* C2C and R2C: the last axis first, from the input to the output,
         * then the others in the output; C2R: the others in the input, then
         * the last from the input to the output */
        int last_pass = p->kind == SIMFFT_C2R ? i == r - 1 : i == 0;
        q->axis = p->kind == SIMFFT_C2R ? (last_pass ? r - 1 : i) : (i == 0 ? r - 1 : r - 1 - i);
        q->kind = last_pass ? p->kind : SIMFFT_C2C;
        q->sign = p->kind == SIMFFT_R2C ? CUFFT_FORWARD : p->kind == SIMFFT_C2R ? CUFFT_INVERSE : sign;
        q->n = p->n[q->axis];
        for (int a = 0; a < r; a++)
            q->len[a] = p->n[a];
        if (p->kind != SIMFFT_C2C && !last_pass)
            q->len[r - 1] = p->n[r - 1] / 2 + 1;
        if (last_pass) {
            q->in = p->in, q->out = p->out, q->itype = p->itype, q->otype = p->otype;
        } else if (p->kind == SIMFFT_C2R) {
            q->in = q->out = p->in, q->itype = q->otype = p->itype;
        } else {
            q->in = q->out = p->out, q->itype = q->otype = p->otype;
        }
        q->lines = p->batch;
        for (int a = 0; a < r; a++)
            if (a != q->axis)
                q->lines *= q->len[a];
    }
    return r;
}

/* Bytes of work area p needs: each pass's lines' scratch (fft_hd.h), the
 * largest; 0 when it overflows. */
static size_t work_bytes(const struct plan *p)
{
    struct simfft_pass q[SIMFFT_MAXRANK];
    int np = passes(p, CUFFT_FORWARD, q);
    size_t most = 0;
    for (int i = 0; i < np; i++) {
        if ((uint64_t)q[i].lines > SIZE_MAX / 32 / (uint64_t)q[i].n)
            return 0;
        size_t b = (size_t)q[i].lines * (size_t)q[i].n * 4 * sizeof(double);
        most = b > most ? b : most;
    }
    return most;
}

static int pow2(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Fills p's shape and layout from a make or size call's arguments; p's
 * handle state is untouched.  The checks are the documented ones: rank 1 to
 * 3, sizes and batch at least 1 (CUFFT_INVALID_SIZE), input, output and
 * execution types of one precision making C2C, R2C or C2R
 * (CUFFT_INVALID_TYPE), half precision on powers of two only
 * (CUFFT_NOT_SUPPORTED); a non-positive stride with an embed is
 * CUFFT_INVALID_VALUE (not documented). */
static cufftResult describe(struct plan *p, int rank, const long long *n, const long long *inembed, long long istride,
                            long long idist, int itype, const long long *onembed, long long ostride, long long odist,
                            int otype, long long batch, int etype)
{
    if (rank < 1 || rank > SIMFFT_MAXRANK || !n || batch < 1)
        return CUFFT_INVALID_SIZE;
    int ci = complex_of(itype), co = complex_of(otype);
    if (!ci || ci != co || ci != etype)
        return CUFFT_INVALID_TYPE;
    int icx = itype == ci, ocx = otype == co;
    if (!icx && !ocx)
        return CUFFT_INVALID_TYPE;
    p->kind = icx && ocx ? SIMFFT_C2C : icx ? SIMFFT_C2R : SIMFFT_R2C;
    p->itype = itype, p->otype = otype;
    p->rank = rank;
    p->batch = batch;
    for (int a = 0; a < rank; a++) {
        if (n[a] < 1)
            return CUFFT_INVALID_SIZE;
        if ((ci == CUDA_C_16F || ci == CUDA_C_16BF) && !pow2(n[a]))
            return CUFFT_NOT_SUPPORTED;
        p->n[a] = n[a];
    }
    p->basic_in = !inembed, p->basic_out = !onembed;
    const long long *emb[2] = { inembed, onembed }, st[2] = { istride, ostride }, di[2] = { idist, odist };
    struct simfft_layout *y[2] = { &p->in, &p->out };
    for (int s = 0; s < 2; s++) {
        if (!emb[s]) {
            basic_layout(p, s == 0 ? icx : ocx, 0, y[s]);
            continue;
        }
        if (st[s] < 1 || (batch > 1 && di[s] < 1))
            return CUFFT_INVALID_VALUE;
        for (int a = 0; a < rank; a++) {
            if (a > 0 && emb[s][a] < 1)
                return CUFFT_INVALID_VALUE;
            y[s]->embed[a] = emb[s][a];
        }
        y[s]->stride = st[s];
        y[s]->dist = di[s];
    }
    p->work_size = work_bytes(p);
    return p->work_size ? CUFFT_SUCCESS : CUFFT_INVALID_SIZE;
}

/* Makes plan h: its device is the current one (a plan runs on the GPU
 * current when it was made, cuFFT documentation "cuFFT and Multiple GPUs");
 * with auto-allocation its work area is allocated there now. */
static cufftResult make(cufftHandle h, int rank, const long long *n, const long long *inembed, long long istride,
                        long long idist, int itype, const long long *onembed, long long ostride, long long odist,
                        int otype, long long batch, int etype, size_t *workSize)
{
    if (simlib_driver(FFT_LIB_NAME) != 0)
        return CUFFT_SETUP_FAILED;
    int dev = simlib_current_device();
    CUcontext ctx = NULL;
    if (dev < 0 || simlib_drv.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS)
        return CUFFT_SETUP_FAILED;
    pthread_mutex_lock(&lock);
    struct plan *p = get(h);
    if (!p) {
        pthread_mutex_unlock(&lock);
        return CUFFT_INVALID_PLAN;
    }
    struct plan d = *p;
    cufftResult r = describe(&d, rank, n, inembed, istride, idist, itype, onembed, ostride, odist, otype, batch, etype);
    if (r == CUFFT_SUCCESS) {
        drop_own(p);
        d.work = p->work;
        d.own = 0;
        d.device = dev, d.ctx = ctx, d.made = 1;
        if (d.auto_alloc) {
            if (simlib_drv.cuMemAlloc(&d.own, d.work_size) != CUDA_SUCCESS)
                r = CUFFT_ALLOC_FAILED;
            else
                d.work = (void *)(uintptr_t)d.own;
        }
        if (r == CUFFT_SUCCESS)
            *p = d;
    }
    if (r == CUFFT_SUCCESS && workSize)
        *workSize = p->work_size;
    pthread_mutex_unlock(&lock);
    return r;
}

/* The work area size of a plan described so, without making it. */
static cufftResult size_of(int rank, const long long *n, const long long *inembed, long long istride,
                           long long idist, int itype, const long long *onembed, long long ostride, long long odist,
                           int otype, long long batch, int etype, size_t *workSize)
{
    struct plan d;
    memset(&d, 0, sizeof d);
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    cufftResult r = describe(&d, rank, n, inembed, istride, idist, itype, onembed, ostride, odist, otype, batch, etype);
    if (r == CUFFT_SUCCESS)
        *workSize = d.work_size;
    return r;
}

static cufftResult size_of_plan(cufftHandle h, int rank, const long long *n, const long long *inembed,
                                long long istride, long long idist, int itype, const long long *onembed,
                                long long ostride, long long odist, int otype, long long batch, int etype,
                                size_t *workSize)
{
    pthread_mutex_lock(&lock);
    int ok = get(h) != NULL;
    pthread_mutex_unlock(&lock);
    if (!ok)
        return CUFFT_INVALID_PLAN;
    return size_of(rank, n, inembed, istride, idist, itype, onembed, ostride, odist, otype, batch, etype, workSize);
}

/* int arrays of the 32-bit calls as long long; NULL stays NULL. */
static const long long *widen(const int *v, int rank, long long out[SIMFFT_MAXRANK])
{
    if (!v)
        return NULL;
    for (int a = 0; a < rank && a < SIMFFT_MAXRANK; a++)
        out[a] = v[a];
    return out;
}

/* The arguments of a legacy-typed call of rank r and sizes n (NULL embeds,
 * the basic layout), as make/size_of take them. */
#define LEGACY_ARGS(r, n, type, batch, it, ot)                                                          \
    (r), (n), NULL, 1, 1, (it), NULL, 1, 1, (ot), (batch), complex_of(it)
#define LEGACY_TYPES(type, it, ot)                                                                      \
    int it, ot;                                                                                         \
    if (!legacy_types((type), &it, &ot))                                                                \
        return CUFFT_INVALID_TYPE

cufftResult CUFFTAPI cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[1] = { nx };
    return make(plan, LEGACY_ARGS(1, n, type, batch, it, ot), workSize);
}

cufftResult CUFFTAPI cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[2] = { nx, ny };
    return make(plan, LEGACY_ARGS(2, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[3] = { nx, ny, nz };
    return make(plan, LEGACY_ARGS(3, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                                       int *onembed, int ostride, int odist, cufftType type, int batch,
                                       size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long nn[SIMFFT_MAXRANK], ie[SIMFFT_MAXRANK], oe[SIMFFT_MAXRANK];
    if (rank < 1 || rank > SIMFFT_MAXRANK)
        return CUFFT_INVALID_SIZE;
    return make(plan, rank, widen(n, rank, nn), widen(inembed, rank, ie), istride, idist, it,
                widen(onembed, rank, oe), ostride, odist, ot, batch, complex_of(it), workSize);
}

cufftResult CUFFTAPI cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, long long int *onembed,
                                         long long int ostride, long long int odist, cufftType type,
                                         long long int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    return make(plan, rank, n, inembed, istride, idist, it, onembed, ostride, odist, ot, batch, complex_of(it),
                workSize);
}

cufftResult CUFFTAPI cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, cudaDataType inputtype,
                                         long long int *onembed, long long int ostride, long long int odist,
                                         cudaDataType outputtype, long long int batch, size_t *workSize,
                                         cudaDataType executiontype)
{
    return make(plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype, batch,
                executiontype, workSize);
}

/* Creates a plan and makes it; on failure the plan is destroyed again. */
static cufftResult create_made(cufftHandle *plan, int rank, const long long *n, const long long *inembed,
                               long long istride, long long idist, const long long *onembed, long long ostride,
                               long long odist, cufftType type, long long batch)
{
    LEGACY_TYPES(type, it, ot);
    if (!plan)
        return CUFFT_INVALID_VALUE;
    cufftResult r = cufftCreate(plan);
    if (r != CUFFT_SUCCESS)
        return r;
    r = make(*plan, rank, n, inembed, istride, idist, it, onembed, ostride, odist, ot, batch, complex_of(it), NULL);
    if (r != CUFFT_SUCCESS)
        cufftDestroy(*plan);
    return r;
}

cufftResult CUFFTAPI cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    long long n[1] = { nx };
    return create_made(plan, 1, n, NULL, 1, 1, NULL, 1, 1, type, batch);
}

cufftResult CUFFTAPI cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    long long n[2] = { nx, ny };
    return create_made(plan, 2, n, NULL, 1, 1, NULL, 1, 1, type, 1);
}

cufftResult CUFFTAPI cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    long long n[3] = { nx, ny, nz };
    return create_made(plan, 3, n, NULL, 1, 1, NULL, 1, 1, type, 1);
}

cufftResult CUFFTAPI cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                                   int *onembed, int ostride, int odist, cufftType type, int batch)
{
    long long nn[SIMFFT_MAXRANK], ie[SIMFFT_MAXRANK], oe[SIMFFT_MAXRANK];
    if (rank < 1 || rank > SIMFFT_MAXRANK)
        return CUFFT_INVALID_SIZE;
    return create_made(plan, rank, widen(n, rank, nn), widen(inembed, rank, ie), istride, idist,
                       widen(onembed, rank, oe), ostride, odist, type, batch);
}

/* ---- sizes without a plan made */

cufftResult CUFFTAPI cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[1] = { nx };
    return size_of(LEGACY_ARGS(1, n, type, batch, it, ot), workSize);
}

cufftResult CUFFTAPI cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[2] = { nx, ny };
    return size_of(LEGACY_ARGS(2, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[3] = { nx, ny, nz };
    return size_of(LEGACY_ARGS(3, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                                       int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long nn[SIMFFT_MAXRANK], ie[SIMFFT_MAXRANK], oe[SIMFFT_MAXRANK];
    if (rank < 1 || rank > SIMFFT_MAXRANK)
        return CUFFT_INVALID_SIZE;
    return size_of(rank, widen(n, rank, nn), widen(inembed, rank, ie), istride, idist, it, widen(onembed, rank, oe),
                   ostride, odist, ot, batch, complex_of(it), workSize);
}

cufftResult CUFFTAPI cufftGetSize1d(cufftHandle handle, int nx, cufftType type, int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[1] = { nx };
    return size_of_plan(handle, LEGACY_ARGS(1, n, type, batch, it, ot), workSize);
}

cufftResult CUFFTAPI cufftGetSize2d(cufftHandle handle, int nx, int ny, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[2] = { nx, ny };
    return size_of_plan(handle, LEGACY_ARGS(2, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftGetSize3d(cufftHandle handle, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    long long n[3] = { nx, ny, nz };
    return size_of_plan(handle, LEGACY_ARGS(3, n, type, 1, it, ot), workSize);
}

cufftResult CUFFTAPI cufftGetSizeMany(cufftHandle handle, int rank, int *n, int *inembed, int istride, int idist,
                                      int *onembed, int ostride, int odist, cufftType type, int batch,
                                      size_t *workArea)
{
    LEGACY_TYPES(type, it, ot);
    long long nn[SIMFFT_MAXRANK], ie[SIMFFT_MAXRANK], oe[SIMFFT_MAXRANK];
    if (rank < 1 || rank > SIMFFT_MAXRANK)
        return CUFFT_INVALID_SIZE;
    return size_of_plan(handle, rank, widen(n, rank, nn), widen(inembed, rank, ie), istride, idist, it,
                        widen(onembed, rank, oe), ostride, odist, ot, batch, complex_of(it), workArea);
}

cufftResult CUFFTAPI cufftGetSizeMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                        long long int istride, long long int idist, long long int *onembed,
                                        long long int ostride, long long int odist, cufftType type,
                                        long long int batch, size_t *workSize)
{
    LEGACY_TYPES(type, it, ot);
    return size_of_plan(plan, rank, n, inembed, istride, idist, it, onembed, ostride, odist, ot, batch,
                        complex_of(it), workSize);
}

cufftResult CUFFTAPI cufftXtGetSizeMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                        long long int istride, long long int idist, cudaDataType inputtype,
                                        long long int *onembed, long long int ostride, long long int odist,
                                        cudaDataType outputtype, long long int batch, size_t *workSize,
                                        cudaDataType executiontype)
{
    return size_of_plan(plan, rank, n, inembed, istride, idist, inputtype, onembed, ostride, odist, outputtype, batch,
                        executiontype, workSize);
}

/* ---- execution */

/* Runs plan h from input to output (direction: C2C's sign).  want_in: the
 * input type the calling cufftExec* function takes (-1: cufftXtExec, any);
 * a plan of another type is CUFFT_INVALID_VALUE (not documented).  The
 * passes go on the plan's stream; the default stream in the plan's
 * context, made current for the launches as cuFFT does (a plan runs on its
 * own GPU whatever is current). */
static cufftResult exec(cufftHandle h, const void *input, void *output, int direction, int want_in, int want_out)
{
    pthread_mutex_lock(&lock);
    struct plan *pp = get(h), p;
    if (pp)
        p = *pp;
    pthread_mutex_unlock(&lock);
    if (!pp || !p.made)
        return CUFFT_INVALID_PLAN;
    if ((want_in >= 0 && (p.itype != want_in || p.otype != want_out)) || !input || !output)
        return CUFFT_INVALID_VALUE;
    if (p.kind == SIMFFT_C2C && direction != CUFFT_FORWARD && direction != CUFFT_INVERSE)
        return CUFFT_INVALID_VALUE;
    if (!p.work)
        return CUFFT_NO_WORKSPACE;
    int in_place = input == output;
    if (p.basic_in)
        basic_layout(&p, p.kind != SIMFFT_R2C, in_place, &p.in);
    if (p.basic_out)
        basic_layout(&p, p.kind != SIMFFT_C2R, in_place, &p.out);
    struct simfft_pass q[SIMFFT_MAXRANK];
    int np = passes(&p, direction, q);
    CUcontext cur = NULL;
    if (!p.stream) {
        simlib_drv.cuCtxGetCurrent(&cur);
        if (cur != p.ctx)
            simlib_drv.cuCtxSetCurrent(p.ctx);
    }
    CUresult r = CUDA_SUCCESS;
    double *work = p.work;
    for (int i = 0; i < np && r == CUDA_SUCCESS; i++) {
        /* a pass after the first reads what it writes: the output (the
         * input for C2R's passes before its last) */
        const void *in = i == 0 ? input : p.kind == SIMFFT_C2R ? input : output;
        void *out = q[i].kind == SIMFFT_C2C && p.kind == SIMFFT_C2R ? (void *)input : output;
        void *params[] = { &in, &out, &work, &q[i] };
        r = simlib_launch(&image, "simfft_pass", (unsigned long long)q[i].lines, (CUstream)p.stream, params);
    }
    if (!p.stream && cur != p.ctx)
        simlib_drv.cuCtxSetCurrent(cur);
    return r == CUDA_SUCCESS ? CUFFT_SUCCESS : CUFFT_EXEC_FAILED;
}

cufftResult CUFFTAPI cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return exec(plan, idata, odata, direction, CUDA_C_32F, CUDA_C_32F);
}

cufftResult CUFFTAPI cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec(plan, idata, odata, CUFFT_FORWARD, CUDA_R_32F, CUDA_C_32F);
}

cufftResult CUFFTAPI cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec(plan, idata, odata, CUFFT_INVERSE, CUDA_C_32F, CUDA_R_32F);
}

cufftResult CUFFTAPI cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata,
                                  int direction)
{
    return exec(plan, idata, odata, direction, CUDA_C_64F, CUDA_C_64F);
}

cufftResult CUFFTAPI cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec(plan, idata, odata, CUFFT_FORWARD, CUDA_R_64F, CUDA_C_64F);
}

cufftResult CUFFTAPI cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec(plan, idata, odata, CUFFT_INVERSE, CUDA_C_64F, CUDA_R_64F);
}

/* "executes any cuFFT transform regardless of precision and type"; the
 * direction is ignored for real transforms. */
cufftResult CUFFTAPI cufftXtExec(cufftHandle plan, void *input, void *output, int direction)
{
    return exec(plan, input, output, direction, -1, -1);
}
