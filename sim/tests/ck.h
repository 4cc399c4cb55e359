/* CK(x) for the sim's library tests (dnn_conv.c, fft_sim.c): a call that
 * returns non-zero (a CUDA, cuDNN or cuFFT error) prints where and what on
 * stderr and exits 3. */
#ifndef SIM_TESTS_CK_H
#define SIM_TESTS_CK_H
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                    \
    do {                                                                                         \
        long long r_ = (long long)(x);                                                           \
        if (r_) {                                                                                \
            fprintf(stderr, "%s:%d: %s = %lld\n", __FILE__, __LINE__, #x, r_);                   \
            exit(3);                                                                             \
        }                                                                                        \
    } while (0)
#endif
