/* reduce: NCCL's element types and reduction operators on the host, for the
 * host twins of the sim's NCCL kernels (kernels.cu, nccl.c).
 *
 * What each operator computes is NCCL 2.30's (src/enqueue.cc hostToDevRedOp,
 * src/device/reduce_kernel.h): ncclSum, ncclProd, ncclMin, ncclMax
 * element by element; ncclAvg is a PreMulSum by 1/nranks (rounded to the
 * element type) for floating-point types and a sum divided by nranks
 * afterwards (SumPostDiv) for integers; a user's ncclRedOpCreatePreMulSum
 * multiplies each rank's input by its scalar before summing.  Half, bfloat16
 * and the two FP8 formats are combined in float and rounded back to their
 * type after every step, as NCCL's kernels do for a pair of inputs (with
 * round-to-nearest-even; FP8 saturates to its largest finite value as
 * __NV_SATFINITE does).  Inputs are combined in rank order 0, 1, ...: a
 * real ring or tree adds them in another order, so float sums of more
 * than two ranks may differ from a GPU's in the last bit. */
#include "simnccl.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

size_t simnccl_type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

/* Small floating-point formats: ebits exponent bits, mbits mantissa bits,
 * IEEE-style bias; `inf`: the format has infinities (half, bfloat16, e5m2;
 * e4m3 has none: its largest finite value is 448, its NaN 0x7f). */
struct minifloat { int ebits, mbits, inf; double max; unsigned nan; };
static const struct minifloat F16 = { 5, 10, 1, 65504.0, 0x7e00 };
static const struct minifloat BF16 = { 8, 7, 1, 3.38953138925153547590e38, 0x7fc0 };
static const struct minifloat E4M3 = { 4, 3, 0, 448.0, 0x7f };
static const struct minifloat E5M2 = { 5, 2, 1, 57344.0, 0x7e };

static float mf_decode(unsigned v, const struct minifloat *f)
{
    unsigned bits = 1 + f->ebits + f->mbits;
    unsigned sign = (v >> (bits - 1)) & 1, e = (v >> f->mbits) & ((1u << f->ebits) - 1);
    unsigned m = v & ((1u << f->mbits) - 1);
    int bias = (1 << (f->ebits - 1)) - 1;
    double x;
    if (!f->inf && e == (1u << f->ebits) - 1 && m == (1u << f->mbits) - 1)
        x = NAN;                                            /* e4m3: S.1111.111 */
    else if (f->inf && e == (1u << f->ebits) - 1)
        x = m ? NAN : INFINITY;
    else if (e == 0)
        x = ldexp((double)m, 1 - bias - f->mbits);
    else
        x = ldexp(1.0 + ldexp((double)m, -f->mbits), (int)e - bias);
    return (float)(sign ? -x : x);
}

/* Round to nearest even.  `sat`: overflow gives the largest finite value
 * (FP8 with __NV_SATFINITE), else infinity (half, bfloat16). */
static unsigned mf_encode(float v, const struct minifloat *f, int sat)
{
    unsigned bits = 1 + f->ebits + f->mbits;
    unsigned sign = signbit(v) ? 1u << (bits - 1) : 0;
    int bias = (1 << (f->ebits - 1)) - 1, emin = 1 - bias;
    double a = fabs((double)v);
    if (isnan(v))
        return f->nan | sign;
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    e -= 1;                                     /* a = m 2^e, 1 <= m < 2 */
    if (e < emin)
        e = emin;
    double q = ldexp(1.0, e - f->mbits);
    double r = nearbyint(a / q) * q;            /* the default rounding mode: to nearest even */
    if (r > f->max || isinf(a)) {
        if (sat || !f->inf)
            r = f->max;
        else
            return sign | (((1u << f->ebits) - 1) << f->mbits);
    }
    if (r < ldexp(1.0, emin))                   /* subnormal (or zero) */
        return sign | (unsigned)(r / ldexp(1.0, emin - f->mbits));
    frexp(r, &e);
    e -= 1;
    unsigned m = (unsigned)((r / ldexp(1.0, e) - 1.0) * ldexp(1.0, f->mbits));
    return sign | ((unsigned)(e + bias) << f->mbits) | m;
}

static const struct minifloat *minifloat_of(ncclDataType_t t)
{
    switch (t) {
    case ncclFloat16: return &F16;
    case ncclBfloat16: return &BF16;
    case ncclFloat8e4m3: return &E4M3;
    case ncclFloat8e5m2: return &E5M2;
    default: return NULL;
    }
}

float simnccl_load_float(const void *p, size_t i, ncclDataType_t t)
{
    const struct minifloat *f = minifloat_of(t);
    if (simnccl_type_size(t) == 1)
        return mf_decode(((const uint8_t *)p)[i], f);
    uint16_t v;
    memcpy(&v, (const char *)p + 2 * i, 2);
    return mf_decode(v, f);
}

void simnccl_store_float(void *p, size_t i, ncclDataType_t t, float v)
{
    const struct minifloat *f = minifloat_of(t);
    if (simnccl_type_size(t) == 1) {
        ((uint8_t *)p)[i] = (uint8_t)mf_encode(v, f, 1);
        return;
    }
    uint16_t u = (uint16_t)mf_encode(v, f, 0);
    memcpy((char *)p + 2 * i, &u, 2);
}

/* One native type T: acc op= x for every element, x first multiplied by the
 * PreMulSum scalar; the post-division of SumPostDiv at the end.  Integer
 * sums and products wrap (computed unsigned), as on a GPU. */
#define NATIVE(T, U, name)                                                                         \
    static void name(void *dst, const void *const *src, int nsrc, size_t n, const struct simnccl_op *op) \
    {                                                                                              \
        T s;                                                                                       \
        memcpy(&s, &op->scalar, sizeof s);                                                         \
        for (size_t i = 0; i < n; i++) {                                                           \
            T acc = 0;                                                                             \
            for (int k = 0; k < nsrc; k++) {                                                       \
                T x;                                                                               \
                memcpy(&x, (const char *)src[k] + i * sizeof(T), sizeof x);                        \
                if (op->kind == SIMNCCL_PREMULSUM)                                                 \
                    x = (T)((U)x * (U)s);                                                          \
                if (k == 0)                                                                        \
                    acc = x;                                                                       \
                else if (op->kind == SIMNCCL_PROD)                                                 \
                    acc = (T)((U)acc * (U)x);                                                      \
                else if (op->kind == SIMNCCL_MIN)                                                  \
                    acc = x < acc ? x : acc;                                                       \
                else if (op->kind == SIMNCCL_MAX)                                                  \
                    acc = x > acc ? x : acc;                                                       \
                else                                                                               \
                    acc = (T)((U)acc + (U)x);                                                      \
            }                                                                                      \
            if (op->kind == SIMNCCL_SUMPOSTDIV)                                                    \
                acc = (T)(acc / (T)op->nranks);                                                    \
            memcpy((char *)dst + i * sizeof(T), &acc, sizeof acc);                                 \
        }                                                                                          \
    }
NATIVE(int8_t, uint8_t, red_i8)
NATIVE(uint8_t, uint8_t, red_u8)
NATIVE(int32_t, uint32_t, red_i32)
NATIVE(uint32_t, uint32_t, red_u32)
NATIVE(int64_t, uint64_t, red_i64)
NATIVE(uint64_t, uint64_t, red_u64)
NATIVE(float, float, red_f32)
NATIVE(double, double, red_f64)

/* Half, bfloat16, FP8: in float, rounded to the type after each step. */
static void red_mini(void *dst, const void *const *src, int nsrc, size_t n, ncclDataType_t t,
                     const struct simnccl_op *op)
{
    unsigned char sb[8];
    memcpy(sb, &op->scalar, sizeof sb);
    float s = simnccl_load_float(sb, 0, t);
    unsigned char tmp[2];
    for (size_t i = 0; i < n; i++) {
        float acc = 0;
        for (int k = 0; k < nsrc; k++) {
            float x = simnccl_load_float(src[k], i, t);
            if (op->kind == SIMNCCL_PREMULSUM) {
                simnccl_store_float(tmp, 0, t, x * s);
                x = simnccl_load_float(tmp, 0, t);
            }
            if (k == 0)
                acc = x;
            else if (op->kind == SIMNCCL_PROD)
                acc = acc * x;
            else if (op->kind == SIMNCCL_MIN)
                acc = x < acc ? x : acc;
            else if (op->kind == SIMNCCL_MAX)
                acc = x > acc ? x : acc;
            else
                acc = acc + x;
            simnccl_store_float(tmp, 0, t, acc);
            acc = simnccl_load_float(tmp, 0, t);
        }
        simnccl_store_float(dst, i, t, acc);
    }
}

void simnccl_reduce(void *dst, const void *const *src, int nsrc, size_t n, ncclDataType_t t,
                    const struct simnccl_op *op)
{
    switch (t) {
    case ncclInt8: red_i8(dst, src, nsrc, n, op); break;
    case ncclUint8: red_u8(dst, src, nsrc, n, op); break;
    case ncclInt32: red_i32(dst, src, nsrc, n, op); break;
    case ncclUint32: red_u32(dst, src, nsrc, n, op); break;
    case ncclInt64: red_i64(dst, src, nsrc, n, op); break;
    case ncclUint64: red_u64(dst, src, nsrc, n, op); break;
    case ncclFloat32: red_f32(dst, src, nsrc, n, op); break;
    case ncclFloat64: red_f64(dst, src, nsrc, n, op); break;
    default: red_mini(dst, src, nsrc, n, t, op); break;
    }
}

/* ncclAvg's scalar, as hostToDevRedOp computes it: 1/nranks in the element
 * type for floating point (PreMulSum), nranks for integers (SumPostDiv). */
void simnccl_avg_op(struct simnccl_op *op, ncclDataType_t t, int nranks)
{
    memset(op, 0, sizeof *op);
    op->nranks = nranks;
    switch (t) {
    case ncclFloat32: {
        float s = (float)(1.0 / nranks);
        op->kind = SIMNCCL_PREMULSUM;
        memcpy(&op->scalar, &s, sizeof s);
        break;
    }
    case ncclFloat64: {
        double s = 1.0 / nranks;
        op->kind = SIMNCCL_PREMULSUM;
        memcpy(&op->scalar, &s, sizeof s);
        break;
    }
    case ncclFloat16: case ncclBfloat16: case ncclFloat8e4m3: case ncclFloat8e5m2: {
        unsigned char b[8] = { 0 };
        simnccl_store_float(b, 0, t, (float)(1.0 / nranks));
        op->kind = SIMNCCL_PREMULSUM;
        memcpy(&op->scalar, b, sizeof b);
        break;
    }
    default:
        op->kind = SIMNCCL_SUMPOSTDIV;
        break;
    }
}
