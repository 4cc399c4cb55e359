/* Code shared by a sim library's device kernels (compiled by nvcc into the
 * library's image) and their host twins (compiled by the C compiler into
 * the library): SIMLIB_HD marks a function both compile, so the image's
 * kernel and the twin that does its work on the sim are one source. */
#ifndef SIM_LIBS_SIMLIB_HD_H
#define SIM_LIBS_SIMLIB_HD_H
#include <library_types.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define SIMLIB_HD static __host__ __device__ inline
#else
#define SIMLIB_HD static inline
#endif

/* Elements of the types of library_types.h (cudaDataType): their size in
 * bytes (0: a type the libraries do not compute in), whether complex, and
 * element i of an array read into v[0] (real), v[1] (imaginary) as double,
 * or stored from them (rounded to nearest even; integers saturate). */
SIMLIB_HD int simlib_type_size(int t)
{
    switch (t) {
    case CUDA_R_8I: case CUDA_R_8U: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: case CUDA_C_16F: case CUDA_C_16BF: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

SIMLIB_HD int simlib_type_complex(int t)
{
    return t == CUDA_C_16F || t == CUDA_C_16BF || t == CUDA_C_32F || t == CUDA_C_64F;
}

/* IEEE binary16 and bfloat16 by their bits, the same on host and device. */
SIMLIB_HD double simlib_from_half(uint16_t h)
{
    int e = (h >> 10) & 31, f = h & 1023;
    double v = e == 0 ? ldexp((double)f, -24) : e == 31 ? (f ? NAN : INFINITY) : ldexp((double)(f + 1024), e - 25);
    return h >> 15 ? -v : v;
}

SIMLIB_HD uint16_t simlib_to_half(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, mant = x & 0x7fffff;
    int32_t exp = (int32_t)((x >> 23) & 0xff);
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    int32_t e = exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {                       /* subnormal half, or zero */
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000;
        int shift = 14 - e;
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;                            /* may carry into the exponent: correct rounding */
    return (uint16_t)h;
}

SIMLIB_HD double simlib_from_bf16(uint16_t b)
{
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

SIMLIB_HD uint16_t simlib_to_bf16(double d)
{
    float f = (float)d;
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((x >> 16) | 0x40);            /* NaN stays NaN */
    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/* Element i of an array of type t: v[0] real, v[1] imaginary. */
SIMLIB_HD void simlib_load(const void *p, int t, int64_t i, double v[2])
{
    const unsigned char *c = (const unsigned char *)p;
    uint16_t h[2];
    v[1] = 0;
    switch (t) {
    case CUDA_R_8I: v[0] = ((const int8_t *)c)[i]; break;
    case CUDA_R_8U: v[0] = c[i]; break;
    case CUDA_R_32I: v[0] = ((const int32_t *)c)[i]; break;
    case CUDA_R_16F: memcpy(h, c + 2 * i, 2); v[0] = simlib_from_half(h[0]); break;
    case CUDA_R_16BF: memcpy(h, c + 2 * i, 2); v[0] = simlib_from_bf16(h[0]); break;
    case CUDA_R_32F: v[0] = ((const float *)c)[i]; break;
    case CUDA_R_64F: v[0] = ((const double *)c)[i]; break;
    case CUDA_C_16F: memcpy(h, c + 4 * i, 4); v[0] = simlib_from_half(h[0]); v[1] = simlib_from_half(h[1]); break;
    case CUDA_C_16BF: memcpy(h, c + 4 * i, 4); v[0] = simlib_from_bf16(h[0]); v[1] = simlib_from_bf16(h[1]); break;
    case CUDA_C_32F: v[0] = ((const float *)c)[2 * i]; v[1] = ((const float *)c)[2 * i + 1]; break;
    case CUDA_C_64F: v[0] = ((const double *)c)[2 * i]; v[1] = ((const double *)c)[2 * i + 1]; break;
    default: v[0] = 0; break;
    }
}

SIMLIB_HD int64_t simlib_saturate(double x, double lo, double hi)
{
    x = nearbyint(x);
    return (int64_t)(x < lo ? lo : x > hi ? hi : x);
}

SIMLIB_HD void simlib_store(void *p, int t, int64_t i, const double v[2])
{
    unsigned char *c = (unsigned char *)p;
    uint16_t h[2];
    switch (t) {
    case CUDA_R_8I: ((int8_t *)c)[i] = (int8_t)simlib_saturate(v[0], -128, 127); break;
    case CUDA_R_8U: c[i] = (unsigned char)simlib_saturate(v[0], 0, 255); break;
    case CUDA_R_32I: ((int32_t *)c)[i] = (int32_t)simlib_saturate(v[0], -2147483648.0, 2147483647.0); break;
    case CUDA_R_16F: h[0] = simlib_to_half(v[0]); memcpy(c + 2 * i, h, 2); break;
    case CUDA_R_16BF: h[0] = simlib_to_bf16(v[0]); memcpy(c + 2 * i, h, 2); break;
    case CUDA_R_32F: ((float *)c)[i] = (float)v[0]; break;
    case CUDA_R_64F: ((double *)c)[i] = v[0]; break;
    case CUDA_C_16F: h[0] = simlib_to_half(v[0]); h[1] = simlib_to_half(v[1]); memcpy(c + 4 * i, h, 4); break;
    case CUDA_C_16BF: h[0] = simlib_to_bf16(v[0]); h[1] = simlib_to_bf16(v[1]); memcpy(c + 4 * i, h, 4); break;
    case CUDA_C_32F: ((float *)c)[2 * i] = (float)v[0]; ((float *)c)[2 * i + 1] = (float)v[1]; break;
    case CUDA_C_64F: ((double *)c)[2 * i] = v[0]; ((double *)c)[2 * i + 1] = v[1]; break;
    default: break;
    }
}

#endif
