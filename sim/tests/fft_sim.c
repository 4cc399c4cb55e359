/* fft_sim MODE: the sim's cuFFT computing transforms on simulated GPUs
 * (sim/tests/fft_sim.sh).
 *   values   each case transforms random data on cuda:1 (or cuda:0) and
 *            compares every element with a reference computed here: the
 *            direct multi-dimensional DFT (one sum over all elements, not
 *            the library's axis by axis), in double: "case NAME: max error
 *            E (tolerance T) ok".  C2C/Z2Z forward and inverse, R2C/D2Z,
 *            C2R/Z2D (the input the R2C reference of a real signal: the
 *            result n times the signal), 1d/2d/3d, odd and prime sizes,
 *            batches, an in-place R2C (padded), an advanced layout
 *            (strides and distances), cufftXtMakePlanMany in half and in
 *            float with embeds as PyTorch passes them, a caller's work area
 *            (auto-allocation off, cufftGetSize) and stream
 *   wrongdev a plan made on cuda:0 executed on input of cuda:1 (no peer
 *            access): exec returns CUFFT_SUCCESS, the stream's
 *            synchronisation CUDA_ERROR_ILLEGAL_ADDRESS
 *   work     the same with the plan's work area on cuda:1
 *   errors   the documented failures: an unknown plan, a size 0, an unknown
 *            type, half of a size not a power of two, an exec of the wrong
 *            type, no work area */
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ck.h"

/* A transform of the test: shape, types, layout (embeds NULL: basic). */
struct fcase {
    const char *name;
    int rank;
    long long n[3], batch;
    int kind;                   /* 0 C2C, 1 R2C, 2 C2R */
    int prec;                   /* 16, 32, 64 */
    int sign;
    int how;                    /* 0 cufftPlan*, 1 cufftPlanMany, 2 cufftXtMakePlanMany, 3 own work area */
    int in_place;
    long long istride, idist, ostride, odist;   /* with how 1, 2: embeds as below */
    long long iembed[3], oembed[3];
    int dev;
};

static uint64_t seed = 12345;
static double rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 9007199254740992.0 * 2 - 1;
}

static uint16_t to_half(double d)
{
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000, e = (u >> 23) & 0xff, m = u & 0x7fffff;
    int ee = (int)e - 127 + 15;
    if (ee <= 0)
        return (uint16_t)s;                         /* the test's values stay normal or vanish */
    uint32_t h = ((uint32_t)ee << 10) | (m >> 13), r = m & 0x1fff;
    if (r > 0x1000 || (r == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(s | h);
}
static double from_half(uint16_t h)
{
    int e = (h >> 10) & 31, f = h & 1023;
    double v = e == 0 ? ldexp(f, -24) : ldexp(f + 1024, e - 25);
    return h >> 15 ? -v : v;
}

/* Element i (real, imag) of a host array of precision prec, complex or not. */
static void put(void *a, int prec, int cx, long long i, double re, double im)
{
    long long k = cx ? 2 * i : i;
    if (prec == 64) {
        ((double *)a)[k] = re;
        if (cx)
            ((double *)a)[k + 1] = im;
    } else if (prec == 32) {
        ((float *)a)[k] = (float)re;
        if (cx)
            ((float *)a)[k + 1] = (float)im;
    } else {
        ((uint16_t *)a)[k] = to_half(re);
        if (cx)
            ((uint16_t *)a)[k + 1] = to_half(im);
    }
}
static void get(const void *a, int prec, int cx, long long i, double *re, double *im)
{
    long long k = cx ? 2 * i : i;
    *im = 0;
    if (prec == 64) {
        *re = ((const double *)a)[k];
        if (cx)
            *im = ((const double *)a)[k + 1];
    } else if (prec == 32) {
        *re = ((const float *)a)[k];
        if (cx)
            *im = ((const float *)a)[k + 1];
    } else {
        *re = from_half(((const uint16_t *)a)[k]);
        if (cx)
            *im = from_half(((const uint16_t *)a)[k + 1]);
    }
}

/* The element offset of (b, x) in a layout. */
static long long at(int rank, const long long *embed, long long stride, long long dist, long long b, const long long *x)
{
    long long lin = x[0];
    for (int a = 1; a < rank; a++)
        lin = lin * embed[a] + x[a];
    return b * dist + stride * lin;
}

/* x[] of the flat index i over extents len[]. */
static void unflat(int rank, const long long *len, long long i, long long *x)
{
    for (int a = rank - 1; a >= 0; a--) {
        x[a] = i % len[a];
        i /= len[a];
    }
}

/* The direct DFT of a logical signal sig (complex, dims n, row-major) into
 * ref (dims n), exponent sign. */
static void dft(int rank, const long long *n, const double *sig, double *ref, int sign)
{
    long long tot = 1;
    for (int a = 0; a < rank; a++)
        tot *= n[a];
    for (long long k = 0; k < tot; k++) {
        long long kx[3], xx[3];
        unflat(rank, n, k, kx);
        long double re = 0, im = 0;
        for (long long j = 0; j < tot; j++) {
            unflat(rank, n, j, xx);
            long double ph = 0;
            for (int a = 0; a < rank; a++)
                ph += (long double)((xx[a] * kx[a]) % n[a]) / n[a];
            ph *= sign * 6.283185307179586476925286766559L;
            re += sig[2 * j] * cosl(ph) - sig[2 * j + 1] * sinl(ph);
            im += sig[2 * j] * sinl(ph) + sig[2 * j + 1] * cosl(ph);
        }
        ref[2 * k] = (double)re;
        ref[2 * k + 1] = (double)im;
    }
}

static int failed;

static cudaDataType ctype(int prec, int cx)
{
    if (prec == 64)
        return cx ? CUDA_C_64F : CUDA_R_64F;
    if (prec == 32)
        return cx ? CUDA_C_32F : CUDA_R_32F;
    return cx ? CUDA_C_16F : CUDA_R_16F;
}

static cufftType ltype(int kind, int prec)
{
    static const cufftType t[2][3] = { { CUFFT_C2C, CUFFT_R2C, CUFFT_C2R }, { CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D } };
    return t[prec == 64][kind];
}

static void run(const struct fcase *c)
{
    int r = c->rank, icx = c->kind != 1, ocx = c->kind != 2;
    long long last = c->n[r - 1], half = last / 2 + 1;
    /* logical extents of the input and output arrays */
    long long ilen[3], olen[3];
    for (int a = 0; a < r; a++)
        ilen[a] = olen[a] = c->n[a];
    if (c->kind == 1)
        olen[r - 1] = half;
    if (c->kind == 2)
        ilen[r - 1] = half;
    /* the layouts: basic (packed; padded for an in-place real side) or the case's */
    long long ie[3], oe[3], is = 1, os = 1, id = 1, od = 1;
    int adv = c->how == 1 || c->how == 2 ? c->iembed[0] != 0 : 0;
    for (int a = 0; a < r; a++) {
        ie[a] = adv ? c->iembed[a] : ilen[a];
        oe[a] = adv ? c->oembed[a] : olen[a];
        if (!adv && c->in_place && a == r - 1) {
            if (c->kind == 1)
                ie[a] = 2 * half;
            if (c->kind == 2)
                oe[a] = 2 * half;
        }
        if (!adv) {
            id *= ie[a];
            od *= oe[a];
        }
    }
    if (adv)
        is = c->istride, id = c->idist, os = c->ostride, od = c->odist;
    long long ispan = 0, ospan = 0, itot = 1, otot = 1, x[3];
    for (int a = 0; a < r; a++)
        itot *= ilen[a], otot *= olen[a];
    for (long long b = 0; b < c->batch; b++)
        for (long long i = 0; i < itot; i++) {
            unflat(r, ilen, i, x);
            long long o = at(r, ie, is, id, b, x) + 1;
            ispan = o > ispan ? o : ispan;
        }
    for (long long b = 0; b < c->batch; b++)
        for (long long i = 0; i < otot; i++) {
            unflat(r, olen, i, x);
            long long o = at(r, oe, os, od, b, x) + 1;
            ospan = o > ospan ? o : ospan;
        }
    int esz = c->prec / 8;
    size_t ib = (size_t)ispan * esz * (icx ? 2 : 1), ob = (size_t)ospan * esz * (ocx ? 2 : 1);
    if (c->in_place)
        ib = ob = ib > ob ? ib : ob;
    unsigned char *hin = calloc(1, ib), *hout = calloc(1, ob);
    /* the logical signal of each batch item, and the expected output */
    long long ntot = 1;
    for (int a = 0; a < r; a++)
        ntot *= c->n[a];
    double *sig = calloc((size_t)(2 * ntot * c->batch), sizeof(double));
    double *want = calloc((size_t)(2 * ntot * c->batch), sizeof(double));
    for (long long b = 0; b < c->batch; b++) {
        double *s = sig + 2 * ntot * b, *w = want + 2 * ntot * b;
        for (long long i = 0; i < ntot; i++) {
            s[2 * i] = rnd();
            s[2 * i + 1] = c->kind == 0 ? rnd() : 0;
        }
        if (c->prec == 16)              /* the half input as the library sees it */
            for (long long i = 0; i < 2 * ntot; i++)
                s[i] = from_half(to_half(s[i]));
        if (c->kind == 2) {
            /* the input: the R2C spectrum of the real signal; the output: ntot times it */
            double *spec = calloc((size_t)(2 * ntot), sizeof(double));
            dft(r, c->n, s, spec, -1);
            for (long long i = 0; i < itot; i++) {
                unflat(r, ilen, i, x);
                long long k = 0;
                for (int a = 0; a < r; a++)
                    k = k * c->n[a] + x[a];
                put(hin, c->prec, 1, at(r, ie, is, id, b, x), spec[2 * k], spec[2 * k + 1]);
            }
            for (long long i = 0; i < ntot; i++)
                w[2 * i] = s[2 * i] * (double)ntot, w[2 * i + 1] = 0;
            free(spec);
        } else {
            for (long long i = 0; i < itot; i++) {
                unflat(r, ilen, i, x);
                put(hin, c->prec, icx, at(r, ie, is, id, b, x), s[2 * i], s[2 * i + 1]);
            }
            dft(r, c->n, s, w, c->kind == 1 ? -1 : c->sign);
        }
    }
    CK(cudaSetDevice(c->dev));
    void *din, *dout;
    CK(cudaMalloc(&din, ib));
    dout = din;
    if (!c->in_place)
        CK(cudaMalloc(&dout, ob));
    CK(cudaMemcpy(din, hin, ib, cudaMemcpyHostToDevice));
    cufftHandle p;
    cudaStream_t st = NULL;
    void *work = NULL;
    int ri = (int)c->n[0];
    int nn[3] = { (int)c->n[0], (int)c->n[1], (int)c->n[2] }, iei[3], oei[3];
    for (int a = 0; a < 3; a++)
        iei[a] = (int)c->iembed[a], oei[a] = (int)c->oembed[a];
    size_t ws = 0;
    if (c->how == 0) {
        if (r == 1)
            CK(cufftPlan1d(&p, ri, ltype(c->kind, c->prec), (int)c->batch));
        else if (r == 2)
            CK(cufftPlan2d(&p, nn[0], nn[1], ltype(c->kind, c->prec)));
        else
            CK(cufftPlan3d(&p, nn[0], nn[1], nn[2], ltype(c->kind, c->prec)));
    } else if (c->how == 1) {
        CK(cufftPlanMany(&p, r, nn, adv ? iei : NULL, (int)c->istride, (int)c->idist, adv ? oei : NULL,
                         (int)c->ostride, (int)c->odist, ltype(c->kind, c->prec), (int)c->batch));
    } else {
        CK(cufftCreate(&p));
        if (c->how == 3)
            CK(cufftSetAutoAllocation(p, 0));
        CK(cufftXtMakePlanMany(p, r, (long long *)c->n, adv ? (long long *)c->iembed : NULL, c->istride, c->idist,
                               ctype(c->prec, icx), adv ? (long long *)c->oembed : NULL, c->ostride, c->odist,
                               ctype(c->prec, ocx), c->batch, &ws, ctype(c->prec, 1)));
        if (c->how == 3) {
            size_t ws2 = 0;
            CK(cufftGetSize(p, &ws2));
            CK(ws2 != ws);
            CK(cudaMalloc(&work, ws));
            CK(cufftSetWorkArea(p, work));
            CK(cudaStreamCreate(&st));
            CK(cufftSetStream(p, st));
        }
    }
    int s;
    if (c->how >= 2)
        s = cufftXtExec(p, din, dout, c->sign);
    else if (c->prec == 32)
        s = c->kind == 0 ? cufftExecC2C(p, din, dout, c->sign)
            : c->kind == 1 ? cufftExecR2C(p, din, dout) : cufftExecC2R(p, din, dout);
    else
        s = c->kind == 0 ? cufftExecZ2Z(p, din, dout, c->sign)
            : c->kind == 1 ? cufftExecD2Z(p, din, dout) : cufftExecZ2D(p, din, dout);
    CK(s);
    CK(cudaStreamSynchronize(st));
    CK(cudaMemcpy(hout, dout, ob, cudaMemcpyDeviceToHost));
    double err = 0, big = 0;
    for (long long b = 0; b < c->batch; b++)
        for (long long i = 0; i < otot; i++) {
            unflat(r, olen, i, x);
            long long k = 0;
            for (int a = 0; a < r; a++)
                k = k * c->n[a] + x[a];
            double re, im;
            get(hout, c->prec, ocx, at(r, oe, os, od, b, x), &re, &im);
            const double *w = want + 2 * (ntot * b + k);
            double e = hypot(re - w[0], im - w[1]);
            err = e > err ? e : err;
            double m = hypot(w[0], w[1]);
            big = m > big ? m : big;
        }
    double tol = (c->prec == 64 ? 1e-12 : c->prec == 32 ? 2e-6 : 1e-2) * big;
    int ok = err <= tol;
    printf("case %s: max error %.3g (tolerance %.3g) %s\n", c->name, err, tol, ok ? "ok" : "FAILED");
    failed += !ok;
    CK(cufftDestroy(p));
    if (work)
        CK(cudaFree(work));
    if (st)
        CK(cudaStreamDestroy(st));
    CK(cudaFree(din));
    if (!c->in_place)
        CK(cudaFree(dout));
    free(hin), free(hout), free(sig), free(want);
}

static const struct fcase cases[] = {
    { .name = "c2c_1d_16_batch3_fwd", .rank = 1, .n = { 16 }, .batch = 3, .kind = 0, .prec = 32, .sign = -1, .dev = 1 },
    { .name = "c2c_1d_15_inv", .rank = 1, .n = { 15 }, .batch = 1, .kind = 0, .prec = 32, .sign = 1, .dev = 1 },
    { .name = "c2c_1d_13_inplace", .rank = 1, .n = { 13 }, .batch = 2, .kind = 0, .prec = 32, .sign = -1,
      .in_place = 1, .dev = 0 },
    { .name = "z2z_2d_6x10", .rank = 2, .n = { 6, 10 }, .batch = 1, .kind = 0, .prec = 64, .sign = -1, .dev = 1 },
    { .name = "c2c_3d_4x3x5_inv", .rank = 3, .n = { 4, 3, 5 }, .batch = 1, .kind = 0, .prec = 32, .sign = 1,
      .dev = 1 },
    { .name = "r2c_1d_12_batch2", .rank = 1, .n = { 12 }, .batch = 2, .kind = 1, .prec = 32, .dev = 1 },
    { .name = "d2z_3d_4x3x5", .rank = 3, .n = { 4, 3, 5 }, .batch = 1, .kind = 1, .prec = 64, .dev = 1 },
    { .name = "r2c_2d_8x7", .rank = 2, .n = { 8, 7 }, .batch = 1, .kind = 1, .prec = 32, .dev = 0 },
    { .name = "r2c_1d_8_inplace_padded", .rank = 1, .n = { 8 }, .batch = 2, .kind = 1, .prec = 32, .in_place = 1,
      .dev = 1 },
    { .name = "c2r_1d_9", .rank = 1, .n = { 9 }, .batch = 1, .kind = 2, .prec = 32, .dev = 1 },
    { .name = "z2d_2d_4x6", .rank = 2, .n = { 4, 6 }, .batch = 1, .kind = 2, .prec = 64, .dev = 1 },
    { .name = "c2r_2d_5x8_batch2", .rank = 2, .n = { 5, 8 }, .batch = 2, .kind = 2, .prec = 32, .dev = 0, .how = 2 },
    { .name = "c2c_many_strided", .rank = 1, .n = { 8 }, .batch = 3, .kind = 0, .prec = 32, .sign = -1, .how = 1,
      .istride = 2, .idist = 20, .ostride = 1, .odist = 9, .iembed = { 8 }, .oembed = { 8 }, .dev = 1 },
    { .name = "r2c_xt_2d_embed", .rank = 2, .n = { 4, 6 }, .batch = 2, .kind = 1, .prec = 32, .how = 2,
      .istride = 1, .idist = 40, .ostride = 1, .odist = 20, .iembed = { 4, 10 }, .oembed = { 4, 5 }, .dev = 1 },
    { .name = "c2c_xt_half_16_batch2", .rank = 1, .n = { 16 }, .batch = 2, .kind = 0, .prec = 16, .sign = -1,
      .how = 2, .dev = 1 },
    { .name = "r2c_xt_half_2d_8x4", .rank = 2, .n = { 8, 4 }, .batch = 1, .kind = 1, .prec = 16, .how = 2, .dev = 1 },
    { .name = "c2c_own_work_stream", .rank = 2, .n = { 3, 7 }, .batch = 2, .kind = 0, .prec = 64, .sign = 1,
      .how = 3, .dev = 1 },
};

/* A cuda:0 plan executed on input of cuda:1, or with its work area there. */
static int wrongdev(int work_on_1)
{
    void *in1, *in0, *out0, *work1;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&in1, 64 * 8));
    CK(cudaMemset(in1, 0, 64 * 8));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&in0, 64 * 8));
    CK(cudaMemset(in0, 0, 64 * 8));
    CK(cudaMalloc(&out0, 64 * 8));
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cufftHandle p;
    size_t ws;
    CK(cufftCreate(&p));
    CK(cufftSetAutoAllocation(p, 0));
    CK(cufftMakePlan1d(p, 64, CUFFT_C2C, 1, &ws));
    CK(cufftSetStream(p, st));
    CK(cudaSetDevice(work_on_1));
    CK(cudaMalloc(&work1, ws));
    CK(cudaSetDevice(0));
    CK(cufftSetWorkArea(p, work1));
    int s = cufftExecC2C(p, work_on_1 ? in0 : in1, out0, CUFFT_FORWARD);
    cudaError_t e = cudaStreamSynchronize(st);
    printf("%s: exec status %d, stream synchronize: %s\n", work_on_1 ? "work" : "wrongdev", s, cudaGetErrorName(e));
    return 0;
}

static void errors(void)
{
    cufftHandle p;
    size_t ws;
    void *a;
    CK(cudaMalloc(&a, 4096));
    int unknown = cufftExecC2C(1234, a, a, CUFFT_FORWARD);
    int size0 = cufftPlan1d(&p, 0, CUFFT_C2C, 1);
    int type = cufftPlan1d(&p, 8, (cufftType)7, 1);
    CK(cufftCreate(&p));
    long long n = 12;
    int half12 = cufftXtMakePlanMany(p, 1, &n, NULL, 1, 1, CUDA_C_16F, NULL, 1, 1, CUDA_C_16F, 1, &ws, CUDA_C_16F);
    int mixed = cufftXtMakePlanMany(p, 1, &n, NULL, 1, 1, CUDA_C_32F, NULL, 1, 1, CUDA_C_64F, 1, &ws, CUDA_C_32F);
    CK(cufftMakePlan1d(p, 8, CUFFT_C2C, 1, &ws));
    int wrong_exec = cufftExecR2C(p, a, a);
    int direction = cufftExecC2C(p, a, a, 0);
    CK(cufftDestroy(p));
    int destroyed = cufftDestroy(p);
    CK(cufftCreate(&p));
    CK(cufftSetAutoAllocation(p, 0));
    CK(cufftMakePlan1d(p, 8, CUFFT_C2C, 1, &ws));
    int no_work = cufftExecC2C(p, a, a, CUFFT_FORWARD);
    CK(cufftDestroy(p));
    printf("errors: unknown plan %d, size 0 %d, type %d, half 12 %d, mixed types %d, wrong exec %d, direction 0 %d,"
           " destroyed %d, no work area %d\n", unknown, size0, type, half12, mixed, wrong_exec, direction, destroyed,
           no_work);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "values";
    if (!strcmp(mode, "values")) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run(&cases[i]);
        printf("fft_sim values: %d failed\n", failed);
        return failed != 0;
    }
    if (!strcmp(mode, "wrongdev") || !strcmp(mode, "work"))
        return wrongdev(!strcmp(mode, "work"));
    if (!strcmp(mode, "errors")) {
        errors();
        return 0;
    }
    fprintf(stderr, "usage: fft_sim values|wrongdev|work|errors\n");
    return 2;
}
