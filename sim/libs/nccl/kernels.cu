// The sim's NCCL kernels (sim/libs/nccl/).  A GPU runs NCCL's kernels
// (ncclDevKernel_*, oneRankReduce) on each rank's device and stream; the sim
// runs these in their place, through their host twins (simcuda_twin_<name>
// in nccl.c: sim/driver/README.md, "Kernels run through ...").  Their device
// code only says which parameters the kernel dereferences (the sim's fault
// model reads it: sim/driver/README.md, "The fault model"): the user's
// buffer; `SimWork` is passed by value, as NCCL's ncclDevKernelArgs are, and
// its pointer is the sim's own host memory, reached by the twin only.
//
// A rank's part of a collective is two launches on its stream: ncclSimPut
// reads its sendbuff into the collective's staging (NCCL's connection
// buffers), ncclSimGet computes its recvbuff from every rank's staging once
// all ranks have put.  One-rank communicators launch ncclSimOneRank, as
// NCCL launches oneRankReduce (src/device/onerank.cu).
#include <cuda_runtime_api.h>
#include <stddef.h>

struct SimWork {
    void *work;
};

__global__ void ncclSimPut(const unsigned char *sendbuff, size_t nbytes, SimWork w)
{
    const volatile unsigned char *s = sendbuff;
    for (size_t i = threadIdx.x; i < nbytes; i += blockDim.x)
        (void)s[i];
}

__global__ void ncclSimGet(unsigned char *recvbuff, size_t nbytes, SimWork w)
{
    for (size_t i = threadIdx.x; i < nbytes; i += blockDim.x)
        recvbuff[i] = 0;
}

__global__ void ncclSimOneRank(unsigned char *recvbuff, const unsigned char *sendbuff, size_t nbytes, SimWork w)
{
    for (size_t i = threadIdx.x; i < nbytes; i += blockDim.x)
        recvbuff[i] = sendbuff[i];
}

// Launched with cudaLaunchKernel, whose status is the launch's own (NCCL's
// CUDACHECK(cudaLaunchKernel(...)) in src/enqueue.cc, src/device/onerank.cu).
#define HIDDEN extern "C" __attribute__((visibility("hidden")))

HIDDEN int simnccl_launch_put(const void *sendbuff, size_t nbytes, void *work, void *stream)
{
    SimWork w = { work };
    void *args[] = { &sendbuff, &nbytes, &w };
    return (int)cudaLaunchKernel((const void *)ncclSimPut, dim3(1), dim3(1), args, 0, (cudaStream_t)stream);
}

HIDDEN int simnccl_launch_get(void *recvbuff, size_t nbytes, void *work, void *stream)
{
    SimWork w = { work };
    void *args[] = { &recvbuff, &nbytes, &w };
    return (int)cudaLaunchKernel((const void *)ncclSimGet, dim3(1), dim3(1), args, 0, (cudaStream_t)stream);
}

HIDDEN int simnccl_launch_onerank(void *recvbuff, const void *sendbuff, size_t nbytes, void *work, void *stream)
{
    SimWork w = { work };
    void *args[] = { &recvbuff, &sendbuff, &nbytes, &w };
    return (int)cudaLaunchKernel((const void *)ncclSimOneRank, dim3(1), dim3(1), args, 0, (cudaStream_t)stream);
}
