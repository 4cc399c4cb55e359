// Cross-device launches, one scenario per process (a fault is sticky):
//   rt_fault nopeer      buffer on device 1, launch on device 0: the launch
//                        faults, cudaDeviceSynchronize returns
//                        cudaErrorIllegalAddress and so does every later call
//   rt_fault peer        the same after cudaDeviceEnablePeerAccess: runs
//   rt_fault pool        pool memory of device 1 with cudaMemPoolSetAccess
//                        granting device 0: runs
//   rt_fault pool-denied the same pool without the grant: faults
//   rt_fault pageable    pageable host memory: faults (no HMM by default)
//   rt_fault ipc         device 1's buffer through an IPC handle opened on
//                        device 0 with cudaIpcMemLazyEnablePeerAccess: runs
#include "rt_check.h"

static const int N = 256;

static void expect_sticky_fault(void)
{
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    void *p = NULL;
    EXPECT_ERR(cudaMalloc(&p, 64), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    EXPECT_ERR(cudaGetLastError(), cudaErrorIllegalAddress); // sticky: not cleared
    EXPECT_ERR(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    printf("fault, sticky\n");
}

static void run(float *a, float *b, float *c)
{
    vadd<<<1, N>>>(a, b, c, N);
    CHECK(cudaGetLastError()); // the launch itself is accepted
}

static void fill_on(int dev, float *p, float v)
{
    float h[N];
    for (int i = 0; i < N; i++)
        h[i] = v;
    int cur;
    CHECK(cudaGetDevice(&cur));
    CHECK(cudaSetDevice(dev));
    CHECK(cudaMemcpy(p, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(cur));
}

static void expect_sum(const float *c, float want)
{
    float h[N];
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDefault));
    for (int i = 0; i < N; i++)
        EXPECT(h[i] == want);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "nopeer";
    float *a0, *c0, *b1;
    CHECK(cudaSetDevice(1));
    if (strncmp(mode, "pool", 4) == 0) {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 1;
        cudaMemPool_t pool;
        CHECK(cudaMemPoolCreate(&pool, &props));
        if (strcmp(mode, "pool") == 0) {
            cudaMemAccessDesc desc;
            memset(&desc, 0, sizeof desc);
            desc.location.type = cudaMemLocationTypeDevice;
            desc.location.id = 0;
            desc.flags = cudaMemAccessFlagsProtReadWrite;
            CHECK(cudaMemPoolSetAccess(pool, &desc, 1));
            cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
            cudaMemLocation loc = desc.location;
            CHECK(cudaMemPoolGetAccess(&f, pool, &loc));
            EXPECT(f == cudaMemAccessFlagsProtReadWrite);
        }
        CHECK(cudaMallocFromPoolAsync((void **)&b1, N * sizeof(float), pool, 0));
        CHECK(cudaStreamSynchronize(0));
    } else if (strcmp(mode, "pageable") == 0) {
        b1 = (float *)malloc(N * sizeof(float));
    } else {
        CHECK(cudaMalloc(&b1, N * sizeof(float)));
    }
    if (strcmp(mode, "pageable") == 0)
        for (int i = 0; i < N; i++)
            b1[i] = 2;
    else
        fill_on(1, b1, 2);

    CHECK(cudaSetDevice(0));
    if (strcmp(mode, "ipc") == 0) {
        cudaIpcMemHandle_t h;
        CHECK(cudaIpcGetMemHandle(&h, b1));
        void *opened = NULL;
        CHECK(cudaIpcOpenMemHandle(&opened, h, cudaIpcMemLazyEnablePeerAccess));
        float hb[N];
        CHECK(cudaMemcpy(hb, opened, sizeof hb, cudaMemcpyDefault));
        EXPECT(hb[0] == 2 && hb[N - 1] == 2);
        b1 = (float *)opened;
    }
    CHECK(cudaMalloc(&a0, N * sizeof(float)));
    CHECK(cudaMalloc(&c0, N * sizeof(float)));
    fill_on(0, a0, 1);
    fill_on(0, c0, 0);

    if (strcmp(mode, "peer") == 0)
        CHECK(cudaDeviceEnablePeerAccess(1, 0));
    run(a0, b1, c0);
    if (strcmp(mode, "peer") == 0 || strcmp(mode, "pool") == 0 || strcmp(mode, "ipc") == 0) {
        CHECK(cudaDeviceSynchronize());
        expect_sum(c0, 3);
        if (strcmp(mode, "ipc") == 0)
            CHECK(cudaIpcCloseMemHandle(b1));
        printf("ran\n");
        return 0;
    }
    expect_sticky_fault();
    return 0;
}
