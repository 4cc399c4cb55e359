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

/* What a make or size call describes: its arguments. */
struct shape {
    int rank;
    const long long *n, *inembed, *onembed;
    long long istride, idist, ostride, odist, batch;
    int itype, otype, etype;        /* cudaDataType: input, output, execution */
};

/* Fills p's shape and layout from s; p's handle state is untouched.  The
 * checks are the documented ones: rank 1 to 3, sizes and batch at least 1
 * (CUFFT_INVALID_SIZE), input, output and execution types of one precision
 * making C2C, R2C or C2R (CUFFT_INVALID_TYPE), half precision on powers of
 * two only (CUFFT_NOT_SUPPORTED); a non-positive stride with an embed is
 * CUFFT_INVALID_VALUE (not documented). */
static cufftResult describe(struct plan *p, const struct shape *s)
{
    if (s->rank < 1 || s->rank > SIMFFT_MAXRANK || !s->n || s->batch < 1)
        return CUFFT_INVALID_SIZE;
    int ci = complex_of(s->itype), co = complex_of(s->otype);
    if (!ci || ci != co || ci != s->etype)
        return CUFFT_INVALID_TYPE;
    int icx = s->itype == ci, ocx = s->otype == co;
    if (!icx && !ocx)
        return CUFFT_INVALID_TYPE;
    p->kind = icx && ocx ? SIMFFT_C2C : icx ? SIMFFT_C2R : SIMFFT_R2C;
    p->itype = s->itype, p->otype = s->otype;
    p->rank = s->rank;
    p->batch = s->batch;
    for (int a = 0; a < s->rank; a++) {
        if (s->n[a] < 1)
            return CUFFT_INVALID_SIZE;
        if ((ci == CUDA_C_16F || ci == CUDA_C_16BF) && !pow2(s->n[a]))
            return CUFFT_NOT_SUPPORTED;
        p->n[a] = s->n[a];
    }
    p->basic_in = !s->inembed, p->basic_out = !s->onembed;
    const long long *emb[2] = { s->inembed, s->onembed }, st[2] = { s->istride, s->ostride },
                    di[2] = { s->idist, s->odist };
    struct simfft_layout *y[2] = { &p->in, &p->out };
    for (int i = 0; i < 2; i++) {
        if (!emb[i]) {
            basic_layout(p, i == 0 ? icx : ocx, 0, y[i]);
            continue;
        }
        if (st[i] < 1 || (s->batch > 1 && di[i] < 1))
            return CUFFT_INVALID_VALUE;
        for (int a = 0; a < s->rank; a++) {
            if (a > 0 && emb[i][a] < 1)
                return CUFFT_INVALID_VALUE;
            y[i]->embed[a] = emb[i][a];
        }
        y[i]->stride = st[i];
        y[i]->dist = di[i];
    }
    p->work_size = work_bytes(p);
    return p->work_size ? CUFFT_SUCCESS : CUFFT_INVALID_SIZE;
}

/* Makes plan h: its device is the current one (a plan runs on the GPU
 * current when it was made, cuFFT documentation "cuFFT and Multiple GPUs");
 * with auto-allocation its work area is allocated there now. */
static cufftResult make(cufftHandle h, const struct shape *s, size_t *workSize)
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
    cufftResult r = describe(&d, s);
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

/* What a call does with its description: make plan h; give the work area
 * size of the description for plan h (cufftGetSize*), or with no plan
 * (cufftEstimate*). */
enum op { MAKE, SIZE_OF_PLAN, ESTIMATE };

static cufftResult plan_op(enum op op, cufftHandle h, const struct shape *s, size_t *workSize)
{
    if (op == MAKE)
        return make(h, s, workSize);
    if (op == SIZE_OF_PLAN) {
        pthread_mutex_lock(&lock);
        int ok = get(h) != NULL;
        pthread_mutex_unlock(&lock);
        if (!ok)
            return CUFFT_INVALID_PLAN;
    }
    if (!workSize)
        return CUFFT_INVALID_VALUE;
    struct plan d;
    memset(&d, 0, sizeof d);
    cufftResult r = describe(&d, s);
    if (r == CUFFT_SUCCESS)
        *workSize = d.work_size;
    return r;
}

/* A call of the cufftType API (64-bit sizes). */
static cufftResult legacy64(enum op op, cufftHandle h, int rank, const long long *n, const long long *inembed,
                            long long istride, long long idist, const long long *onembed, long long ostride,
                            long long odist, cufftType type, long long batch, size_t *workSize)
{
    struct shape s = { rank, n, inembed, onembed, istride, idist, ostride, odist, batch, 0, 0, 0 };
    if (!legacy_types(type, &s.itype, &s.otype))
        return CUFFT_INVALID_TYPE;
    s.etype = complex_of(s.itype);
    return plan_op(op, h, &s, workSize);
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

/* A call of the cufftType API (32-bit sizes). */
static cufftResult legacy(enum op op, cufftHandle h, int rank, const int *n, const int *inembed, int istride,
                          int idist, const int *onembed, int ostride, int odist, cufftType type, int batch,
                          size_t *workSize)
{
    long long nn[SIMFFT_MAXRANK], ie[SIMFFT_MAXRANK], oe[SIMFFT_MAXRANK];
    if (rank < 1 || rank > SIMFFT_MAXRANK)
        return CUFFT_INVALID_SIZE;
    return legacy64(op, h, rank, widen(n, rank, nn), widen(inembed, rank, ie), istride, idist,
                    widen(onembed, rank, oe), ostride, odist, type, batch, workSize);
}

/* The basic layout's arguments (NULL embeds) after the sizes. */
#define BASIC NULL, 1, 1, NULL, 1, 1

cufftResult CUFFTAPI cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch, size_t *workSize)
{
    return legacy(MAKE, plan, 1, (int[]){ nx }, BASIC, type, batch, workSize);
}

cufftResult CUFFTAPI cufftMakePlan2d(cufftHandle plan, int nx, int ny, cufftType type, size_t *workSize)
{
    return legacy(MAKE, plan, 2, (int[]){ nx, ny }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftMakePlan3d(cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return legacy(MAKE, plan, 3, (int[]){ nx, ny, nz }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftMakePlanMany(cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist,
                                       int *onembed, int ostride, int odist, cufftType type, int batch,
                                       size_t *workSize)
{
    return legacy(MAKE, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult CUFFTAPI cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, long long int *onembed,
                                         long long int ostride, long long int odist, cufftType type,
                                         long long int batch, size_t *workSize)
{
    return legacy64(MAKE, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult CUFFTAPI cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                         long long int istride, long long int idist, cudaDataType inputtype,
                                         long long int *onembed, long long int ostride, long long int odist,
                                         cudaDataType outputtype, long long int batch, size_t *workSize,
                                         cudaDataType executiontype)
{
    struct shape s = { rank, n, inembed, onembed, istride, idist, ostride, odist, batch, inputtype, outputtype,
                       executiontype };
    return plan_op(MAKE, plan, &s, workSize);
}

/* Creates a plan and makes it; on failure the plan is destroyed again. */
static cufftResult create_made(cufftHandle *plan, int rank, const int *n, const int *inembed, int istride, int idist,
                               const int *onembed, int ostride, int odist, cufftType type, int batch)
{
    if (!plan)
        return CUFFT_INVALID_VALUE;
    cufftResult r = cufftCreate(plan);
    if (r != CUFFT_SUCCESS)
        return r;
    r = legacy(MAKE, *plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, NULL);
    if (r != CUFFT_SUCCESS)
        cufftDestroy(*plan);
    return r;
}

cufftResult CUFFTAPI cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    return create_made(plan, 1, (int[]){ nx }, BASIC, type, batch);
}

cufftResult CUFFTAPI cufftPlan2d(cufftHandle *plan, int nx, int ny, cufftType type)
{
    return create_made(plan, 2, (int[]){ nx, ny }, BASIC, type, 1);
}

cufftResult CUFFTAPI cufftPlan3d(cufftHandle *plan, int nx, int ny, int nz, cufftType type)
{
    return create_made(plan, 3, (int[]){ nx, ny, nz }, BASIC, type, 1);
}

cufftResult CUFFTAPI cufftPlanMany(cufftHandle *plan, int rank, int *n, int *inembed, int istride, int idist,
                                   int *onembed, int ostride, int odist, cufftType type, int batch)
{
    return create_made(plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
}

/* ---- sizes without a plan made */

cufftResult CUFFTAPI cufftEstimate1d(int nx, cufftType type, int batch, size_t *workSize)
{
    return legacy(ESTIMATE, 0, 1, (int[]){ nx }, BASIC, type, batch, workSize);
}

cufftResult CUFFTAPI cufftEstimate2d(int nx, int ny, cufftType type, size_t *workSize)
{
    return legacy(ESTIMATE, 0, 2, (int[]){ nx, ny }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftEstimate3d(int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return legacy(ESTIMATE, 0, 3, (int[]){ nx, ny, nz }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftEstimateMany(int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                                       int ostride, int odist, cufftType type, int batch, size_t *workSize)
{
    return legacy(ESTIMATE, 0, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, workSize);
}

cufftResult CUFFTAPI cufftGetSize1d(cufftHandle handle, int nx, cufftType type, int batch, size_t *workSize)
{
    return legacy(SIZE_OF_PLAN, handle, 1, (int[]){ nx }, BASIC, type, batch, workSize);
}

cufftResult CUFFTAPI cufftGetSize2d(cufftHandle handle, int nx, int ny, cufftType type, size_t *workSize)
{
    return legacy(SIZE_OF_PLAN, handle, 2, (int[]){ nx, ny }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftGetSize3d(cufftHandle handle, int nx, int ny, int nz, cufftType type, size_t *workSize)
{
    return legacy(SIZE_OF_PLAN, handle, 3, (int[]){ nx, ny, nz }, BASIC, type, 1, workSize);
}

cufftResult CUFFTAPI cufftGetSizeMany(cufftHandle handle, int rank, int *n, int *inembed, int istride, int idist,
                                      int *onembed, int ostride, int odist, cufftType type, int batch,
                                      size_t *workArea)
{
    return legacy(SIZE_OF_PLAN, handle, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                  workArea);
}

cufftResult CUFFTAPI cufftGetSizeMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                        long long int istride, long long int idist, long long int *onembed,
                                        long long int ostride, long long int odist, cufftType type,
                                        long long int batch, size_t *workSize)
{
    return legacy64(SIZE_OF_PLAN, plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch,
                    workSize);
}

cufftResult CUFFTAPI cufftXtGetSizeMany(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                        long long int istride, long long int idist, cudaDataType inputtype,
                                        long long int *onembed, long long int ostride, long long int odist,
                                        cudaDataType outputtype, long long int batch, size_t *workSize,
                                        cudaDataType executiontype)
{
    struct shape s = { rank, n, inembed, onembed, istride, idist, ostride, odist, batch, inputtype, outputtype,
                       executiontype };
    return plan_op(SIZE_OF_PLAN, plan, &s, workSize);
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
