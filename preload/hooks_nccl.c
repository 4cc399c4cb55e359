/* hooks_nccl: NCCL's collectives and point-to-point calls checked at their
 * API (preload/hooks_lib.h has the machinery, preload/hooks_lib.def the
 * table): the communicator's device, and its rank (what a rooted collective
 * reads or writes on this rank).  NCCL's symbols are unversioned. */
#include "preload/hooks_lib.h"

#define LIB_THIS NCCL

/* The communicator's device, or -1; *rank its rank (-1 unknown). */
static int nccl_device(ncclComm_t comm, int *rank)
{
    __typeof__(&ncclCommCuDevice) cd = REAL(ncclCommCuDevice);
    __typeof__(&ncclCommUserRank) ur = REAL(ncclCommUserRank);
    int d = -1;
    *rank = -1;
    if (!cd || cd(comm, &d) != ncclSuccess)
        d = -1;
    if (!ur || ur(comm, rank) != ncclSuccess)
        *rank = -1;
    return d;
}

/* An NCCL collective `name`; `root` is the root rank of a rooted one (-1:
 * none); is_root, in the checked arguments: this rank is the root (or the
 * rank is unknown), so a root-only buffer is checked. */
#define NCCL_HOOK(name, params, args, root, ...)                                    \
    LIB_HOOK(ncclResult_t, , name, params, args, ncclSystemError, ncclSuccess,       \
             (int rank_; int d_ = nccl_device(comm, &rank_);                         \
              int is_root = (root) < 0 || rank_ < 0 || rank_ == (root); (void)is_root; \
              struct dc_lib_arg a[] = { __VA_ARGS__ };                               \
              dc_lib_check(#name, d_, P(stream), a, NARGS(a))))

NCCL_HOOK(ncclAllReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclBroadcast,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", is_root ? sendbuff : NULL), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclBcast,
    (void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream),
    (buff, count, datatype, root, comm, stream), -1,
    ARG("buff", buff))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclReduce,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op, int root,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, op, root, comm, stream), root,
    ARG("sendbuff", sendbuff), ARG("recvbuff", is_root ? recvbuff : NULL))
NCCL_HOOK(ncclAllGather,
    (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, sendcount, datatype, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclReduceScatter,
    (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype, ncclRedOp_t op,
     ncclComm_t comm, cudaStream_t stream),
    (sendbuff, recvbuff, recvcount, datatype, op, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclAlltoAll,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, comm, stream), -1,
    ARG("sendbuff", sendbuff), ARG("recvbuff", recvbuff))
/* recvbuff is written on the root only */
NCCL_HOOK(ncclGather,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", sendbuff), ARG("recvbuff", is_root ? recvbuff : NULL))
/* sendbuff is read on the root only */
NCCL_HOOK(ncclScatter,
    (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
     cudaStream_t stream),
    (sendbuff, recvbuff, count, datatype, root, comm, stream), root,
    ARG("sendbuff", is_root ? sendbuff : NULL), ARG("recvbuff", recvbuff))
NCCL_HOOK(ncclSend,
    (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (sendbuff, count, datatype, peer, comm, stream), -1,
    ARG("sendbuff", sendbuff))
NCCL_HOOK(ncclRecv,
    (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm, cudaStream_t stream),
    (recvbuff, count, datatype, peer, comm, stream), -1,
    ARG("recvbuff", recvbuff))
