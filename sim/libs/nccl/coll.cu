// The sim's NCCL kernels (sim/libs/nccl/, nccl.c): the library's code
// image (sim/libs/README.md), launched with cuLaunchKernel on each rank's
// stream.  A GPU runs NCCL's own kernels (ncclDevKernel_*, oneRankReduce)
// there; the sim runs these through their host twins (simcuda_twin_<name>,
// nccl.c), which compute the collective.  Their device code says which
// parameters the kernel dereferences (the sim's fault model reads the
// image's PTX: sim/driver/README.md, "The fault model"): the user's buffers.
// It does not compute NCCL's result (that would need the peers' memory);
// SimWork travels by value, as NCCL's ncclDevKernelArgs do, and points to
// the library's own host memory, which only the twin reads.
//
// A rank's part of a collective is two launches on its stream: ncclSimPut
// reads its sendbuff into the collective's staging (NCCL's connection
// buffers), ncclSimGet computes its recvbuff from every rank's staging once
// all ranks have put.  One-rank communicators launch ncclSimOneRank, as
// NCCL launches oneRankReduce (src/device/onerank.cu).
#include <stddef.h>

struct SimWork {
    void *work;
};

extern "C" __global__ void ncclSimPut(const unsigned char *sendbuff, size_t nbytes, SimWork w)
{
    const volatile unsigned char *s = sendbuff;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nbytes; i += (size_t)gridDim.x * blockDim.x)
        (void)s[i];
}

extern "C" __global__ void ncclSimGet(unsigned char *recvbuff, size_t nbytes, SimWork w)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nbytes; i += (size_t)gridDim.x * blockDim.x)
        recvbuff[i] = 0;
}

extern "C" __global__ void ncclSimOneRank(unsigned char *recvbuff, const unsigned char *sendbuff, size_t nbytes,
                                          SimWork w)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nbytes; i += (size_t)gridDim.x * blockDim.x)
        recvbuff[i] = sendbuff[i];
}
