/* NCCL at its API (tests/libapi/libapi.sh): `nccl_prog buggy|correct` on
 * two simulated GPUs, one communicator per device (ncclCommInitAll):
 *  - before the library is bound, dlsym(RTLD_DEFAULT, "ncclAllReduce")
 *    says whether NCCL is in the global scope (printed: a devcheck run must
 *    print what a plain run prints);
 *  - ncclAllReduce per rank, each rank's buffers on its device, except
 *    rank 1's recvbuff on cuda:0 when buggy (the one finding);
 *  - ncclBroadcast from root 0 where rank 1 passes a host sendbuff (read on
 *    the root only: legal).
 * `host`: rank 0's AllReduce sendbuff is pageable host memory (the one
 * finding: host_memory, the H200 has no pageable memory access).
 * `zero`: then an AllReduce of count 0 with rank 0's sendbuff pageable and
 * rank 1's recvbuff on cuda:0 (nothing is read or written: no finding).
 * `stream`: rank 1's AllReduce gets cuda:0's stream (the one finding:
 * stream_mismatch, at the group's ncclGroupEnd, which fails: NCCL launches
 * into the stream with cuda:1 current).
 * `threads`: then 4 threads, one after the other, each running one grouped
 * AllReduce round and exiting (nccl_group.sh: under sync=1 devcheck's
 * per-thread group records are freed at each thread's exit, LeakSanitizer).
 * `loop`: then 50 more grouped AllReduce rounds (100 collectives; nccl_calls.sh
 * counts the getter calls a profiler sees). */
#include <nccl.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(ncclCommInitAll) X(ncclCommDestroy) X(ncclGroupStart) X(ncclGroupEnd) X(ncclAllReduce) \
    X(ncclBroadcast)
FNS(DECL_FN)

struct round {
    ncclComm_t *comms;
    float **send, **recv;
    cudaStream_t *s;
};

static void *one_round(void *arg)
{
    struct round *r = arg;
    CK(F(ncclGroupStart)());
    for (int i = 0; i < 2; i++)
        CK(F(ncclAllReduce)(r->send[i], r->recv[i], 256, ncclFloat, ncclSum, r->comms[i], r->s[i]));
    CK(F(ncclGroupEnd)());
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy"), hostmode = !strcmp(mode, "host"), zero = !strcmp(mode, "zero");
    int loop = !strcmp(mode, "loop"), other_stream = !strcmp(mode, "stream");
    static float pageable[256];
    printf("probe: ncclAllReduce %s\n", dlsym(RTLD_DEFAULT, "ncclAllReduce") ? "in the global scope" : "absent");
    BIND("libnccl.so.2");
    float *send[2], *recv[2], *wrong;
    cudaStream_t s[2];
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&wrong, 256 * sizeof(float)));    // @alloc-recv
    for (int i = 0; i < 2; i++) {
        CK(cudaSetDevice(i));
        CK(cudaMalloc((void **)&send[i], 256 * sizeof(float)));
        CK(cudaMalloc((void **)&recv[i], 256 * sizeof(float)));
        CK(cudaStreamCreate(&s[i]));
    }
    ncclComm_t comms[2];
    int devs[2] = { 0, 1 };
    CK(F(ncclCommInitAll)(comms, 2, devs));
    CK(F(ncclGroupStart)());
    for (int i = 0; i < 2; i++)
        CK(F(ncclAllReduce)(hostmode && i == 0 ? pageable : send[i], buggy && i == 1 ? wrong : recv[i], 256, ncclFloat,
                            ncclSum, comms[i], s[other_stream ? 0 : i]));
    CK(F(ncclGroupEnd)());
    static float host[256];
    CK(F(ncclGroupStart)());
    for (int i = 0; i < 2; i++)
        CK(F(ncclBroadcast)(i == 0 ? (const void *)send[0] : (const void *)host, recv[i], 256, ncclFloat, 0,
                            comms[i], s[i]));
    CK(F(ncclGroupEnd)());
    for (int round = 0; round < (loop ? 50 : zero ? 1 : 0); round++) {
        CK(F(ncclGroupStart)());
        for (int i = 0; i < 2; i++)
            CK(F(ncclAllReduce)(zero && i == 0 ? pageable : send[i], zero && i == 1 ? wrong : recv[i], zero ? 0 : 256,
                                ncclFloat, ncclSum, comms[i], s[i]));
        CK(F(ncclGroupEnd)());
    }
    if (!strcmp(mode, "threads")) {
        struct round r = { comms, send, recv, s };
        for (int t = 0; t < 4; t++) {
            pthread_t th;
            CK(pthread_create(&th, NULL, one_round, &r));
            CK(pthread_join(th, NULL));
        }
    }
    for (int i = 0; i < 2; i++)
        CK(F(ncclCommDestroy)(comms[i]));
    printf("nccl_prog %s: done\n", mode);
    return 0;
}
