/* The sim's NCCL on N simulated GPUs of one process (SIMCUDA_DEVICES=N):
 * `nccl_coll MODE`, each mode checking the values every rank receives
 * against the same computation on the host (nccl_coll.sh runs them on 2
 * and 4 GPUs):
 *   all      ncclCommInitAll; in one group per collective (one thread
 *            driving every GPU): AllReduce with every ncclRedOp on every
 *            type, in place too; Broadcast, Reduce (root 1), AllGather,
 *            ReduceScatter, AlltoAll, Gather, Scatter, a Send/Recv ring; a
 *            user PreMulSum (host and device scalar); count 0 (nothing
 *            runs); ungrouped calls from the one thread; ncclCommSplit
 *            into even and odd ranks; getters; destroy twice, finalize twice
 *   threads  one thread per rank: ncclGetUniqueId, ncclCommInitRank in each
 *            thread, then ungrouped AllReduce and AllGather per thread
 *   initgroup  ncclCommInitRank for every rank from one thread, in a group
 *   onerank  a one-rank communicator: ncclSum (a copy) and ncclAvg (a kernel)
 *   fault    rank 1's recvbuff on cuda:0: the call succeeds, rank 1's
 *            device faults (cudaErrorIllegalAddress at its next
 *            synchronization), rank 0 gets its sum
 *   stream   rank 0 handed a stream of cuda:1: ncclUnhandledCudaError
 *   getters  100 rounds of ncclCommCuDevice and ncclCommUserRank on every
 *            rank, then one grouped AllReduce (nccl_nvtx.sh counts the NVTX
 *            ranges they push) */
#include <nccl.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"


#define MAXR 16
enum { N = 37 };                /* elements per rank: odd, not a multiple of any vector width */
static int nr;
static ncclComm_t comms[MAXR];
static cudaStream_t streams[MAXR];

/* `call` (an expression of the rank r) once per rank, in one group: one
 * thread driving every GPU, as the collectives of mode all do */
#define EVERY_RANK(call)                        \
    do {                                        \
        CK(ncclGroupStart());                   \
        for (int r = 0; r < nr; r++)            \
            CK(call);                           \
        CK(ncclGroupEnd());                     \
    } while (0)

static void *dev_alloc(int dev, size_t bytes)
{
    void *p;
    CK(cudaSetDevice(dev));
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, 0xee, bytes));
    return p;
}

static void to_dev(void *d, const void *h, size_t n) { CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)); }
static void to_host(void *h, const void *d, size_t n) { CK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)); }

/* ------------------------------------------------------------------ */
/* values: element i of rank r, as a double, exactly representable in every
 * type (small integers; fp8 e4m3 holds integers up to 16 exactly) */
static ncclRedOp_t cur_op;      /* ncclProd: small values, whose product fits every type */
static double val(int r, int i, ncclDataType_t t)
{
    int small = t == ncclFloat8e4m3 || t == ncclFloat8e5m2 || t == ncclInt8 || t == ncclUint8 || cur_op == ncclProd;
    int v = small ? (r + 1 + i % 3) : (r * 7 + i % 11 + 1);
    return v;
}

static size_t tsize(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    default: return 8;
    }
}

/* host encodings of the small float types, for exact small values only */
static uint16_t to_half(double v) { _Float16 h = (_Float16)v; uint16_t u; memcpy(&u, &h, 2); return u; }
static double from_half(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return (double)h; }
static uint16_t to_bf16(double v) { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); return (uint16_t)(u >> 16); }
static double from_bf16(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
/* e4m3 / e5m2 of v (exact for the small values used, up to their max) */
static uint8_t to_fp8(double v, int e4m3)
{
    int mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    if (v == 0)
        return 0;
    int e = 0;
    while (v >= 2) { v /= 2; e++; }
    while (v < 1) { v *= 2; e--; }
    return (uint8_t)(((e + bias) << mb) | (int)((v - 1) * (1 << mb)));
}
static double from_fp8(uint8_t b, int e4m3)
{
    int mb = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
    int e = b >> mb, m = b & ((1 << mb) - 1);
    if (!e)
        return m / (double)(1 << mb) * (e4m3 ? 1.0 / 64 : 1.0 / 16384);
    double x = 1 + m / (double)(1 << mb);
    for (int k = e - bias; k > 0; k--) x *= 2;
    for (int k = e - bias; k < 0; k++) x /= 2;
    return x;
}

static void put(void *buf, size_t i, ncclDataType_t t, double v)
{
    char *p = (char *)buf + i * tsize(t);
    switch (t) {
    case ncclInt8: *(int8_t *)p = (int8_t)v; break;
    case ncclUint8: *(uint8_t *)p = (uint8_t)v; break;
    case ncclInt32: *(int32_t *)p = (int32_t)v; break;
    case ncclUint32: *(uint32_t *)p = (uint32_t)v; break;
    case ncclInt64: *(int64_t *)p = (int64_t)v; break;
    case ncclUint64: *(uint64_t *)p = (uint64_t)v; break;
    case ncclFloat32: *(float *)p = (float)v; break;
    case ncclFloat64: *(double *)p = v; break;
    case ncclFloat16: { uint16_t u = to_half(v); memcpy(p, &u, 2); break; }
    case ncclBfloat16: { uint16_t u = to_bf16(v); memcpy(p, &u, 2); break; }
    case ncclFloat8e4m3: *(uint8_t *)p = to_fp8(v, 1); break;
    case ncclFloat8e5m2: *(uint8_t *)p = to_fp8(v, 0); break;
    default: break;
    }
}

static double get(const void *buf, size_t i, ncclDataType_t t)
{
    const char *p = (const char *)buf + i * tsize(t);
    uint16_t u;
    switch (t) {
    case ncclInt8: return *(const int8_t *)p;
    case ncclUint8: return *(const uint8_t *)p;
    case ncclInt32: return *(const int32_t *)p;
    case ncclUint32: return *(const uint32_t *)p;
    case ncclInt64: return (double)*(const int64_t *)p;
    case ncclUint64: return (double)*(const uint64_t *)p;
    case ncclFloat32: return *(const float *)p;
    case ncclFloat64: return *(const double *)p;
    case ncclFloat16: memcpy(&u, p, 2); return from_half(u);
    case ncclBfloat16: memcpy(&u, p, 2); return from_bf16(u);
    case ncclFloat8e4m3: return from_fp8(*(const uint8_t *)p, 1);
    case ncclFloat8e5m2: return from_fp8(*(const uint8_t *)p, 0);
    default: return 0;
    }
}

static int is_float(ncclDataType_t t) { return t >= ncclFloat16; }

/* the reduction over ranks of element i, as NCCL defines each operator */
static double expect_red(ncclRedOp_t op, int i, ncclDataType_t t)
{
    double acc = val(0, i, t);
    for (int r = 1; r < nr; r++) {
        double x = val(r, i, t);
        switch (op) {
        case ncclProd: acc *= x; break;
        case ncclMin: acc = x < acc ? x : acc; break;
        case ncclMax: acc = x > acc ? x : acc; break;
        default: acc += x; break;
        }
    }
    if (op == ncclAvg)
        acc = is_float(t) ? acc / nr : (double)((long long)acc / nr);
    return acc;
}

static void near(double got, double want, ncclDataType_t t, const char *what, int r, int i)
{
    double tol = t == ncclFloat8e4m3 || t == ncclFloat8e5m2 ? 0.26 : t == ncclFloat16 || t == ncclBfloat16 ? 0.01
                                                                                                           : 1e-6;
    double d = got - want;
    if (d < 0)
        d = -d;
    if (d > tol * (want < 0 ? -want : want) + 1e-9) {
        fprintf(stderr, "%s type %d: rank %d element %d = %g, want %g\n", what, (int)t, r, i, got, want);
        exit(1);
    }
}

static void sync_all(void)
{
    for (int r = 0; r < nr; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(streams[r]));
    }
}

/* ------------------------------------------------------------------ */

/* a stream per device, then ncclCommInitAll from cuda:0: rank r on cuda:r,
 * the caller's device kept */
static void init_all(void)
{
    int devs[MAXR], cur;
    for (int r = 0; r < nr; r++) {
        devs[r] = r;
        CK(cudaSetDevice(r));
        CK(cudaStreamCreate(&streams[r]));
    }
    CK(cudaSetDevice(0));
    CK(ncclCommInitAll(comms, nr, devs));
    CK(cudaGetDevice(&cur));
    TRUE(cur == 0);
}

static void allreduce_types(void)
{
    static const ncclDataType_t types[] = { ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64,
                                            ncclFloat16, ncclFloat32, ncclFloat64, ncclBfloat16, ncclFloat8e4m3,
                                            ncclFloat8e5m2 };
    static const ncclRedOp_t ops[] = { ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg };
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++) {
        ncclDataType_t t = types[ti];
        size_t bytes = N * tsize(t);
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
            ncclRedOp_t op = cur_op = ops[oi];
            if (op == ncclProd && tsize(t) == 1 && nr > 2)
                continue;               /* 4^4 leaves the 8-bit types */
            for (int inplace = 0; inplace < 2; inplace++) {
                void *send[MAXR], *recv[MAXR];
                unsigned char host[N * 8];
                for (int r = 0; r < nr; r++) {
                    send[r] = dev_alloc(r, bytes);
                    recv[r] = inplace ? send[r] : dev_alloc(r, bytes);
                    for (int i = 0; i < N; i++)
                        put(host, (size_t)i, t, val(r, i, t));
                    to_dev(send[r], host, bytes);
                }
                EVERY_RANK(ncclAllReduce(send[r], recv[r], N, t, op, comms[r], streams[r]));
                sync_all();
                for (int r = 0; r < nr; r++) {
                    to_host(host, recv[r], bytes);
                    for (int i = 0; i < N; i++)
                        near(get(host, (size_t)i, t), expect_red(op, i, t), t, "AllReduce", r, i);
                    CK(cudaFree(send[r]));
                    if (!inplace)
                        CK(cudaFree(recv[r]));
                }
            }
        }
    }
    cur_op = ncclSum;
    printf("AllReduce: every op on every type, in place too: ok\n");
}

/* float buffers on every rank: send[r] of `scount`, recv[r] of `rcount`
 * elements; send[r][i] = 1000 r + i */
struct bufs { float *send[MAXR], *recv[MAXR], *hs, *hr; size_t scount, rcount; };

static void bufs_make(struct bufs *b, size_t scount, size_t rcount)
{
    b->scount = scount;
    b->rcount = rcount;
    b->hs = malloc(scount * sizeof(float));
    b->hr = malloc(rcount * sizeof(float));
    TRUE(b->hs && b->hr);
    for (int r = 0; r < nr; r++) {
        b->send[r] = dev_alloc(r, scount * sizeof(float));
        b->recv[r] = dev_alloc(r, rcount * sizeof(float));
        for (size_t i = 0; i < scount; i++)
            b->hs[i] = (float)(1000 * r + (int)i);
        to_dev(b->send[r], b->hs, scount * sizeof(float));
    }
}

static float *bufs_recv(struct bufs *b, int r)
{
    to_host(b->hr, b->recv[r], b->rcount * sizeof(float));
    return b->hr;
}

static void bufs_free(struct bufs *b)
{
    for (int r = 0; r < nr; r++) {
        CK(cudaFree(b->send[r]));
        CK(cudaFree(b->recv[r]));
    }
    free(b->hs);
    free(b->hr);
}

#define EXPECT_F(got, want, what, r, i)                                                          \
    do {                                                                                          \
        if ((got) != (want)) {                                                                    \
            fprintf(stderr, "%s: rank %d element %d = %g, want %g\n", what, r, (int)(i), (double)(got), \
                    (double)(want));                                                              \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

static void other_collectives(void)
{
    struct bufs b;
    const float untouched = *(const float *)(const unsigned char[]){ 0xee, 0xee, 0xee, 0xee };
    /* Broadcast from root 1 (rank 0's sendbuff is never read: NULL) */
    bufs_make(&b, N, N);
    EVERY_RANK(ncclBroadcast(r == 1 ? b.send[r] : NULL, b.recv[r], N, ncclFloat, 1, comms[r], streams[r]));
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < N; i++)
            EXPECT_F(bufs_recv(&b, r)[i], 1000 + i, "Broadcast", r, i);
    bufs_free(&b);
    /* Reduce to root 1: the others' recvbuff untouched */
    bufs_make(&b, N, N);
    EVERY_RANK(ncclReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, 1, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int i = 0; i < N; i++)
            EXPECT_F(h[i], r == 1 ? 1000 * nr * (nr - 1) / 2 + nr * i : untouched, "Reduce", r, i);
    }
    bufs_free(&b);
    /* AllGather: block k from rank k */
    bufs_make(&b, N, (size_t)N * nr);
    EVERY_RANK(ncclAllGather(b.send[r], b.recv[r], N, ncclFloat, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int k = 0; k < nr; k++)
            for (int i = 0; i < N; i++)
                EXPECT_F(h[k * N + i], 1000 * k + i, "AllGather", r, k * N + i);
    }
    bufs_free(&b);
    /* ReduceScatter: rank r gets the sum of block r */
    bufs_make(&b, (size_t)N * nr, N);
    EVERY_RANK(ncclReduceScatter(b.send[r], b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int i = 0; i < N; i++)
            EXPECT_F(h[i], 1000 * nr * (nr - 1) / 2 + nr * (r * N + i), "ReduceScatter", r, i);
    }
    bufs_free(&b);
    /* AlltoAll: rank r's block k is rank k's block r */
    bufs_make(&b, (size_t)N * nr, (size_t)N * nr);
    EVERY_RANK(ncclAlltoAll(b.send[r], b.recv[r], N, ncclFloat, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int k = 0; k < nr; k++)
            for (int i = 0; i < N; i++)
                EXPECT_F(h[k * N + i], 1000 * k + r * N + i, "AlltoAll", r, k * N + i);
    }
    bufs_free(&b);
    /* Gather to root 0 */
    bufs_make(&b, N, (size_t)N * nr);
    EVERY_RANK(ncclGather(b.send[r], b.recv[r], N, ncclFloat, 0, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int k = 0; k < nr; k++)
            for (int i = 0; i < N; i++)
                EXPECT_F(h[k * N + i], r == 0 ? 1000 * k + i : untouched, "Gather", r, k * N + i);
    }
    bufs_free(&b);
    /* Scatter from root 1: rank r gets root's block r */
    bufs_make(&b, (size_t)N * nr, N);
    EVERY_RANK(ncclScatter(b.send[r], b.recv[r], N, ncclFloat, 1, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int i = 0; i < N; i++)
            EXPECT_F(h[i], 1000 + r * N + i, "Scatter", r, i);
    }
    bufs_free(&b);
    /* Send/Recv ring: rank r sends to r+1, receives from r-1 */
    bufs_make(&b, N, N);
    CK(ncclGroupStart());
    for (int r = 0; r < nr; r++) {
        CK(ncclSend(b.send[r], N, ncclFloat, (r + 1) % nr, comms[r], streams[r]));
        CK(ncclRecv(b.recv[r], N, ncclFloat, (r + nr - 1) % nr, comms[r], streams[r]));
    }
    CK(ncclGroupEnd());
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < N; i++)
            EXPECT_F(bufs_recv(&b, r)[i], 1000 * ((r + nr - 1) % nr) + i, "Send/Recv", r, i);
    bufs_free(&b);
    printf("Broadcast, Reduce, AllGather, ReduceScatter, AlltoAll, Gather, Scatter, Send/Recv: ok\n");
}

static void premulsum(void)
{
    struct bufs b;
    bufs_make(&b, N, N);
    ncclRedOp_t ops[MAXR];
    float *dscalar[MAXR];
    for (int r = 0; r < nr; r++) {
        /* rank r's own scalar: 2 on the host for even ranks, 3 on the device for odd ones */
        float s = r % 2 ? 3.0f : 2.0f;
        if (r % 2) {
            dscalar[r] = dev_alloc(r, sizeof s);
            to_dev(dscalar[r], &s, sizeof s);
            CK(ncclRedOpCreatePreMulSum(&ops[r], dscalar[r], ncclFloat, ncclScalarDevice, comms[r]));
        } else {
            dscalar[r] = NULL;
            CK(ncclRedOpCreatePreMulSum(&ops[r], &s, ncclFloat, ncclScalarHostImmediate, comms[r]));
        }
    }
    EVERY_RANK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ops[r], comms[r], streams[r]));
    /* each rank multiplies its own input by its own scalar, then the sum */
    for (int r = 0; r < nr; r++) {
        float *h = bufs_recv(&b, r);
        for (int i = 0; i < N; i++) {
            float want = 0;
            for (int k = 0; k < nr; k++)
                want += (k % 2 ? 3.0f : 2.0f) * (float)(1000 * k + i);
            EXPECT_F(h[i], want, "PreMulSum", r, i);
        }
        CK(ncclRedOpDestroy(ops[r], comms[r]));
        TRUE(ncclRedOpDestroy(ops[r], comms[r]) == ncclInvalidArgument);
        if (dscalar[r])
            CK(cudaFree(dscalar[r]));
    }
    TRUE(ncclRedOpDestroy(ncclSum, comms[0]) == ncclInvalidArgument);
    bufs_free(&b);
    printf("PreMulSum: host and device scalars: ok\n");
}

static void misc(void)
{
    struct bufs b;
    bufs_make(&b, N, N);
    /* count 0: nothing runs (NCCL discards empty collectives), recvbuff untouched */
    for (int r = 0; r < nr; r++)
        CK(ncclAllReduce(b.send[r], b.recv[r], 0, ncclFloat, ncclSum, comms[r], streams[r]));
    const float untouched = *(const float *)(const unsigned char[]){ 0xee, 0xee, 0xee, 0xee };
    EXPECT_F(bufs_recv(&b, 0)[0], untouched, "count 0", 0, 0);
    /* ungrouped, one thread: each rank's call returns; the last completes all */
    for (int r = 0; r < nr; r++)
        CK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclMax, comms[r], streams[r]));
    for (int r = 0; r < nr; r++)
        for (int i = 0; i < N; i++)
            EXPECT_F(bufs_recv(&b, r)[i], 1000 * (nr - 1) + i, "ungrouped AllReduce", r, i);
    /* getters */
    for (int r = 0; r < nr; r++) {
        int v;
        CK(ncclCommCuDevice(comms[r], &v));
        TRUE(v == r);
        CK(ncclCommUserRank(comms[r], &v));
        TRUE(v == r);
        CK(ncclCommCount(comms[r], &v));
        TRUE(v == nr);
        ncclResult_t ae;
        CK(ncclCommGetAsyncError(comms[r], &ae));
        TRUE(ae == ncclSuccess);
    }
    TRUE(ncclCommCuDevice(NULL, &(int){ 0 }) == ncclInvalidArgument);
    TRUE(ncclAllReduce(b.send[0], b.recv[0], N, ncclFloat, ncclSum, NULL, streams[0]) == ncclInvalidArgument);
    TRUE(ncclBroadcast(b.send[0], b.recv[0], N, ncclFloat, nr, comms[0], streams[0]) == ncclInvalidArgument);
    TRUE(ncclAllReduce(b.send[0], b.recv[0], N, (ncclDataType_t)ncclNumTypes, ncclSum, comms[0], streams[0]) ==
         ncclInvalidArgument);
    TRUE(ncclGroupEnd() == ncclInvalidUsage);
    /* an error inside a group fails its ncclGroupEnd, and nothing of it runs */
    CK(ncclGroupStart());
    for (int r = 0; r < nr; r++)
        CK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r]));
    TRUE(ncclAllReduce(b.send[0], b.recv[0], N, ncclFloat, (ncclRedOp_t)99, comms[0], streams[0]) ==
         ncclInvalidArgument);
    TRUE(ncclGroupEnd() == ncclInvalidArgument);
    EXPECT_F(bufs_recv(&b, 0)[0], 1000 * (nr - 1), "failed group", 0, 0);
    int version;
    CK(ncclGetVersion(&version));
    TRUE(version == 23007);
    TRUE(!strcmp(ncclGetErrorString(ncclInvalidUsage), "invalid usage (run with NCCL_DEBUG=WARN for details)"));
    bufs_free(&b);
    printf("count 0, ungrouped calls, getters, argument checks, group errors: ok\n");
}

static void split(void)
{
    ncclComm_t sub[MAXR];
    CK(ncclGroupStart());
    for (int r = 0; r < nr; r++)        /* colors: even and odd ranks; keys reverse the order */
        CK(ncclCommSplit(comms[r], r % 2, nr - r, &sub[r], NULL));
    CK(ncclGroupEnd());
    struct bufs b;
    bufs_make(&b, N, N);
    EVERY_RANK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, sub[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        int n, rank, dev;
        CK(ncclCommCount(sub[r], &n));
        CK(ncclCommUserRank(sub[r], &rank));
        CK(ncclCommCuDevice(sub[r], &dev));
        TRUE(n == (nr + 1 - r % 2) / 2 && dev == r);
        TRUE(rank == (n - 1) - r / 2);              /* higher parent rank, lower key: first */
        float *h = bufs_recv(&b, r), sum = 0;
        for (int k = r % 2; k < nr; k += 2)
            sum += 1000 * k;
        for (int i = 0; i < N; i++)
            EXPECT_F(h[i], sum + n * i, "AllReduce after ncclCommSplit", r, i);
    }
    /* NCCL_SPLIT_NOCOLOR: no communicator */
    ncclComm_t none[MAXR];
    EVERY_RANK(ncclCommSplit(comms[r], r == 0 ? NCCL_SPLIT_NOCOLOR : 5, 0, &none[r], NULL));
    TRUE(none[0] == NULL);
    for (int r = 1; r < nr; r++) {
        int n;
        CK(ncclCommCount(none[r], &n));
        TRUE(n == nr - 1);
        CK(ncclCommDestroy(none[r]));
    }
    for (int r = 0; r < nr; r++) {
        CK(ncclCommFinalize(sub[r]));
        TRUE(ncclCommFinalize(sub[r]) == ncclInvalidArgument);
        CK(ncclCommDestroy(sub[r]));
        TRUE(ncclCommDestroy(sub[r]) == ncclInvalidArgument);
    }
    bufs_free(&b);
    printf("ncclCommSplit: colors, keys, NOCOLOR; finalize and destroy twice refused: ok\n");
}

static void mode_all(void)
{
    init_all();
    allreduce_types();
    other_collectives();
    premulsum();
    misc();
    split();
    for (int r = 0; r < nr; r++)
        CK(ncclCommDestroy(comms[r]));
}

/* ------------------------------------------------------------------ */

static ncclUniqueId uid;
static pthread_barrier_t barrier;

static void *rank_thread(void *arg)
{
    int r = (int)(intptr_t)arg;
    CK(cudaSetDevice(r));
    CK(cudaStreamCreate(&streams[r]));
    CK(ncclCommInitRank(&comms[r], nr, uid, r));
    float *send, *recv, h[N * MAXR];
    CK(cudaMalloc((void **)&send, N * sizeof(float)));
    CK(cudaMalloc((void **)&recv, N * MAXR * sizeof(float)));
    for (int i = 0; i < N; i++)
        h[i] = (float)(r + 1);
    CK(cudaMemcpy(send, h, N * sizeof(float), cudaMemcpyHostToDevice));
    for (int round = 0; round < 3; round++) {
        CK(ncclAllReduce(send, recv, N, ncclFloat, ncclSum, comms[r], streams[r]));
        CK(cudaStreamSynchronize(streams[r]));
        CK(cudaMemcpy(h, recv, N * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            EXPECT_F(h[i], nr * (nr + 1) / 2, "threads: AllReduce", r, i);
        CK(ncclAllGather(send, recv, N, ncclFloat, comms[r], streams[r]));
        CK(cudaMemcpy(h, recv, (size_t)N * nr * sizeof(float), cudaMemcpyDeviceToHost));
        for (int k = 0; k < nr; k++)
            EXPECT_F(h[k * N], k + 1, "threads: AllGather", r, k * N);
    }
    pthread_barrier_wait(&barrier);
    CK(ncclCommDestroy(comms[r]));
    return NULL;
}

static void mode_threads(void)
{
    CK(ncclGetUniqueId(&uid));
    pthread_t th[MAXR];
    pthread_barrier_init(&barrier, NULL, (unsigned)nr);
    for (int r = 0; r < nr; r++)
        TRUE(pthread_create(&th[r], NULL, rank_thread, (void *)(intptr_t)r) == 0);
    for (int r = 0; r < nr; r++)
        pthread_join(th[r], NULL);
    printf("threads: ncclCommInitRank per thread, AllReduce and AllGather: ok\n");
}

static void mode_initgroup(void)
{
    CK(ncclGetUniqueId(&uid));
    CK(ncclGroupStart());
    for (int r = 0; r < nr; r++) {
        CK(cudaSetDevice(r));
        CK(cudaStreamCreate(&streams[r]));
        CK(ncclCommInitRank(&comms[r], nr, uid, r));
    }
    /* inside the group the communicators exist but are not ready */
    int n;
    TRUE(ncclCommCount(comms[0], &n) == ncclInvalidArgument);
    CK(ncclGroupEnd());
    struct bufs b;
    bufs_make(&b, N, N);
    EVERY_RANK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r]));
    for (int r = 0; r < nr; r++) {
        int dev;
        CK(ncclCommCuDevice(comms[r], &dev));
        TRUE(dev == r);
        EXPECT_F(bufs_recv(&b, r)[1], 1000 * nr * (nr - 1) / 2 + nr, "initgroup: AllReduce", r, 1);
        CK(ncclCommDestroy(comms[r]));
    }
    bufs_free(&b);
    printf("initgroup: ncclCommInitRank of every rank in one group: ok\n");
}

static void mode_onerank(void)
{
    ncclComm_t c;
    int dev = nr - 1;
    CK(cudaSetDevice(dev));
    CK(ncclCommInitAll(&c, 1, &dev));
    float h[N], *send, *recv;
    for (int i = 0; i < N; i++)
        h[i] = (float)i;
    send = dev_alloc(dev, sizeof h);
    recv = dev_alloc(dev, sizeof h);
    to_dev(send, h, sizeof h);
    CK(ncclAllReduce(send, recv, N, ncclFloat, ncclSum, c, NULL));
    CK(ncclAllReduce(send, send, N, ncclFloat, ncclAvg, c, NULL));
    to_host(h, recv, sizeof h);
    EXPECT_F(h[5], 5, "one rank: Sum", 0, 5);
    to_host(h, send, sizeof h);
    EXPECT_F(h[5], 5, "one rank: Avg", 0, 5);
    CK(ncclCommDestroy(c));
    printf("onerank: ok\n");
}

static void mode_fault(void)
{
    init_all();
    struct bufs b;
    bufs_make(&b, N, N);
    float *wrong = dev_alloc(0, N * sizeof(float));
    EVERY_RANK(ncclAllReduce(b.send[r], r == 1 ? wrong : b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r]));
    CK(cudaSetDevice(0));
    CK(cudaStreamSynchronize(streams[0]));
    EXPECT_F(bufs_recv(&b, 0)[2], 1000 * nr * (nr - 1) / 2 + 2 * nr, "fault: rank 0", 0, 2);
    CK(cudaSetDevice(1));
    cudaError_t e = cudaStreamSynchronize(streams[1]);
    printf("fault: rank 1's device: %s\n", cudaGetErrorName(e));
    TRUE(e == cudaErrorIllegalAddress);
}

static void mode_stream(void)
{
    init_all();
    struct bufs b;
    bufs_make(&b, N, N);
    ncclResult_t res[MAXR];
    CK(ncclGroupStart());
    for (int r = 0; r < nr; r++)
        res[r] = ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r == 0 ? 1 : r]);
    ncclResult_t end = ncclGroupEnd();
    printf("stream: calls %d, ncclGroupEnd %d\n", (int)res[0], (int)end);
    TRUE(end == ncclUnhandledCudaError);
}

static void mode_getters(void)
{
    init_all();
    for (int k = 0; k < 100; k++)
        for (int r = 0; r < nr; r++) {
            int v;
            CK(ncclCommCuDevice(comms[r], &v));
            CK(ncclCommUserRank(comms[r], &v));
        }
    struct bufs b;
    bufs_make(&b, N, N);
    EVERY_RANK(ncclAllReduce(b.send[r], b.recv[r], N, ncclFloat, ncclSum, comms[r], streams[r]));
    for (int r = 0; r < nr; r++)
        CK(ncclCommDestroy(comms[r]));
    bufs_free(&b);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    CK(cudaGetDeviceCount(&nr));
    if (nr > MAXR)
        nr = MAXR;
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(mode, "all"))
        mode_all();
    else if (!strcmp(mode, "threads"))
        mode_threads();
    else if (!strcmp(mode, "initgroup"))
        mode_initgroup();
    else if (!strcmp(mode, "onerank"))
        mode_onerank();
    else if (!strcmp(mode, "fault"))
        mode_fault();
    else if (!strcmp(mode, "stream"))
        mode_stream();
    else if (!strcmp(mode, "getters"))
        mode_getters();
    else {
        fprintf(stderr, "nccl_coll: unknown mode %s\n", mode);
        return 2;
    }
    printf("nccl_coll %s on %d GPUs: done\n", mode, nr);
    return 0;
}
