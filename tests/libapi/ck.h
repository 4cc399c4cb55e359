/* CK(x) for tests/libapi/'s programs (bind.h's, dnn_real.c): a call that
 * returns non-zero (a CUDA or a library's error status) prints where and
 * what on stderr and exits 3 (libapi.sh's status column: the sim's library
 * faulted on the wrong operand). */
#ifndef LIBAPI_CK_H
#define LIBAPI_CK_H
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                \
    do {                                                                     \
        long long r_ = (long long)(x);                                       \
        if (r_) {                                                            \
            fprintf(stderr, "%s:%d: %s = %lld\n", __FILE__, __LINE__, #x, r_); \
            exit(3);                                                         \
        }                                                                    \
    } while (0)
#endif
