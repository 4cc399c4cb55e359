/* What the sim libraries' C test programs share (sim/libs/<name>/tests/):
 * CK, a call whose status must be 0 (the CUDA, NCCL, cuSOLVER and cuRAND
 * success value), and TRUE; either exits 1 naming the file, the line and
 * the expression. */
#ifndef SIM_LIBS_TEST_CHECK_H
#define SIM_LIBS_TEST_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                  \
    do {                                                                                       \
        long r_ = (long)(x);                                                                   \
        if (r_ != 0) {                                                                         \
            fprintf(stderr, "%s:%d: %s = %ld\n", __FILE__, __LINE__, #x, r_);                  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#define TRUE(x)                                                                                \
    do {                                                                                       \
        if (!(x)) {                                                                            \
            fprintf(stderr, "%s:%d: not true: %s\n", __FILE__, __LINE__, #x);                  \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)
#endif
