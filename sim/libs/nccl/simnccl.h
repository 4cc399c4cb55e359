/* The sim's NCCL (sim/libs/nccl/): what its files share.  Nothing here is
 * exported. */
#ifndef SIMNCCL_H
#define SIMNCCL_H

#include <nccl.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* A reduction as NCCL's kernels see it (src/enqueue.cc hostToDevRedOp):
 * ncclAvg becomes PREMULSUM (floating point) or SUMPOSTDIV (integers). */
enum simnccl_opkind { SIMNCCL_SUM, SIMNCCL_PROD, SIMNCCL_MIN, SIMNCCL_MAX, SIMNCCL_PREMULSUM, SIMNCCL_SUMPOSTDIV };
struct simnccl_op {
    enum simnccl_opkind kind;
    uint64_t scalar;            /* PREMULSUM: the scalar's bytes, in the element type */
    const void *scalar_ptr;     /* PREMULSUM with ncclScalarDevice: read by the kernel, on its device */
    int nranks;                 /* SUMPOSTDIV's divisor */
};

size_t simnccl_type_size(ncclDataType_t t);        /* 0: not a type */
float simnccl_load_float(const void *p, size_t i, ncclDataType_t t);
void simnccl_store_float(void *p, size_t i, ncclDataType_t t, float v);
/* dst[i] = src[0][i] op src[1][i] op ... for i < n (dst may be any of src) */
void simnccl_reduce(void *dst, const void *const *src, int nsrc, size_t n, ncclDataType_t t,
                    const struct simnccl_op *op);
void simnccl_avg_op(struct simnccl_op *op, ncclDataType_t t, int nranks);

#pragma GCC visibility pop

#endif
