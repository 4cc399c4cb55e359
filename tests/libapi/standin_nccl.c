/* A stand-in for NVIDIA's libnccl.so.2 (tests/libapi/README): unversioned
 * symbols as the real one, each collective a weak ncclX aliasing a strong
 * pncclX; a communicator knows its device and rank; no data moves. */
#include <nccl.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

struct ncclComm {
    int device, rank, nranks;
};

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    if (!uniqueId)
        return ncclInvalidArgument;
    memset(uniqueId, 0, sizeof *uniqueId);
    return ncclSuccess;
}

/* One communicator per device of devlist (0..ndev-1 when NULL), rank i on devlist[i]. */
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
    if (!comm || ndev <= 0)
        return ncclInvalidArgument;
    for (int i = 0; i < ndev; i++) {
        struct ncclComm *c = calloc(1, sizeof *c);
        if (!c)
            return ncclSystemError;
        c->device = devlist ? devlist[i] : i;
        c->rank = i;
        c->nranks = ndev;
        comm[i] = c;
    }
    return ncclSuccess;
}

/* One rank of nranks on the current device (tests/gpu/lib_progs.py: a one-rank communicator). */
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    struct ncclComm *c;
    if (!comm || nranks <= 0 || rank < 0 || rank >= nranks || !(c = calloc(1, sizeof *c)))
        return ncclInvalidArgument;
    if (cudaGetDevice(&c->device) != cudaSuccess) {
        free(c);
        return ncclUnhandledCudaError;
    }
    c->rank = rank;
    c->nranks = nranks;
    *comm = c;
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    free(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm || !device)
        return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclGroupStart(void) { return ncclSuccess; }
ncclResult_t ncclGroupEnd(void) { return ncclSuccess; }

/* pncclX does nothing but check its communicator; ncclX is its weak alias. */
#define COLL(name, params)                                                        \
    ncclResult_t p##name params { return comm ? ncclSuccess : ncclInvalidArgument; } \
    __attribute__((weak, alias("p" #name))) ncclResult_t name params;
COLL(ncclAllReduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                     ncclComm_t comm, cudaStream_t stream))
COLL(ncclBroadcast, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                     ncclComm_t comm, cudaStream_t stream))
COLL(ncclReduce, (const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                  int root, ncclComm_t comm, cudaStream_t stream))
COLL(ncclAllGather, (const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                     ncclComm_t comm, cudaStream_t stream))
COLL(ncclReduceScatter, (const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                         ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream))
COLL(ncclSend, (const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))
COLL(ncclRecv, (void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                cudaStream_t stream))
