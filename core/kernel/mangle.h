/* mangle: what a kernel's Itanium-mangled name says about its parameters.
 *
 * `_Z6concatPKfS0_Pfii` is concat(const float*, const float*, float*, int,
 * int): the name alone proves which top-level parameters are pointers and
 * which are builtin scalars.  Class and template types (a struct passed by
 * value, a lambda closure, TensorIterator's OffsetCalculator) are aggregates
 * whose layout the name does not give, with two exceptions whose layout is
 * fixed by their definition: std::array<T, N> / at::detail::Array<T, N> (N
 * elements of T, so N pointers when T is a pointer type) and numba's array
 * ABI (`5ArrayIfLi1E1A7mutable7alignedE`: meminfo, parent, nitems, itemsize,
 * data, shape[ndim], strides[ndim] as separate parameters).
 *
 * Contract: a pure function of its input (no CUDA, no allocation, no global
 * state, thread-safe); never reads past the terminating NUL; any input gives
 * an answer.  A construct the parser does not understand makes the whole
 * answer "not understood" (-1): a wrong parameter index is worse than none,
 * so the parser never guesses where a parameter starts. */
#ifndef DEVCHECK_CORE_MANGLE_H
#define DEVCHECK_CORE_MANGLE_H
#include <stdint.h>

#pragma GCC visibility push(hidden)

enum dc_sig_kind {
    DC_SIG_UNKNOWN = 0,     /* a type the parser cannot classify */
    DC_SIG_POINTER,         /* T*, T&: a pointer parameter */
    DC_SIG_SCALAR,          /* a builtin arithmetic type, nullptr_t, pointer to data member: never a pointer */
    DC_SIG_AGGREGATE,       /* class, struct, union, enum, closure: layout unknown */
    DC_SIG_PTR_ARRAY,       /* std::array<T*, n> (at::detail::Array): n pointers, 8 bytes apart */
    DC_SIG_SCALAR_ARRAY,    /* std::array<scalar, n>: no pointer */
};

struct dc_sig_param {
    uint8_t kind;           /* enum dc_sig_kind */
    uint8_t size;           /* DC_SIG_SCALAR: bytes, 0 if unknown */
    uint16_t numba;         /* numba array ABI: 1 + the index of this parameter in its array's group */
    uint32_t n;             /* DC_SIG_*_ARRAY: elements */
};

/* The top-level parameters of the kernel whose mangled name is `name`: up
 * to `max` go to out[], numba's arrays already expanded into their
 * parameters.  Returns the number of parameters (which may exceed max), or
 * -1 when name is not an Itanium function name the parser understands
 * completely (plain C names, special names, unsupported constructs). */
int dc_sig_params(const char *name, struct dc_sig_param *out, int max);

#pragma GCC visibility pop
#endif
