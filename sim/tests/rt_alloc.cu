// Every allocation kind on every device, with the pointer attributes the
// runtime reports for it; memset/memcpy round trips.
#include "rt_check.h"

static void expect_attr(const void *p, cudaMemoryType type, int dev)
{
    cudaPointerAttributes a;
    memset(&a, 0x5a, sizeof a);
    CHECK(cudaPointerGetAttributes(&a, p));
    if (a.type != type || a.device != dev) {
        fprintf(stderr, "pointer %p: type %d device %d, expected type %d device %d\n", p, (int)a.type,
                a.device, (int)type, dev);
        exit(1);
    }
    switch (type) {
    case cudaMemoryTypeDevice:
        EXPECT(a.devicePointer == p && a.hostPointer == NULL);
        break;
    case cudaMemoryTypeManaged:
        EXPECT(a.devicePointer == p && a.hostPointer == p);
        break;
    case cudaMemoryTypeHost:
        EXPECT(a.hostPointer == p && a.devicePointer != NULL);
        break;
    default:   // driver_types.h: unregistered memory's hostPointer is the pointer itself
        EXPECT(a.devicePointer == NULL && a.hostPointer == p);
    }
}

static void roundtrip(void *dev, size_t n)
{
    unsigned char *h = (unsigned char *)malloc(n), *back = (unsigned char *)malloc(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (unsigned char)(i * 7 + 1);
    CHECK(cudaMemset(dev, 0xab, n));
    CHECK(cudaMemcpy(back, dev, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        EXPECT(back[i] == 0xab);
    CHECK(cudaMemcpy(dev, h, n, cudaMemcpyHostToDevice));
    memset(back, 0, n);
    CHECK(cudaMemcpy(back, dev, n, cudaMemcpyDefault));
    EXPECT(memcmp(h, back, n) == 0);
    free(h);
    free(back);
}

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n == 4);
    const size_t N = 4096;
    static char pageable[1 << 16];
    expect_attr(pageable, cudaMemoryTypeUnregistered, cudaInvalidDeviceId);

    for (int d = 0; d < n; d++) {
        CHECK(cudaSetDevice(d));
        void *dm = NULL, *mm = NULL, *hm = NULL, *ha = NULL, *am = NULL, *pitched = NULL;
        CHECK(cudaMalloc(&dm, N));
        expect_attr(dm, cudaMemoryTypeDevice, d);
        expect_attr((char *)dm + 100, cudaMemoryTypeDevice, d);
        roundtrip(dm, N);

        size_t pitch = 0;
        CHECK(cudaMallocPitch(&pitched, &pitch, 100, 8));
        EXPECT(pitch >= 100);
        expect_attr(pitched, cudaMemoryTypeDevice, d);
        CHECK(cudaMemset2D(pitched, pitch, 1, 100, 8));

        CHECK(cudaMallocManaged(&mm, N, cudaMemAttachGlobal));
        expect_attr(mm, cudaMemoryTypeManaged, d);
        memset(mm, 3, N); // managed memory is host-accessible
        roundtrip(mm, N);
        cudaMemLocation loc = {};
        loc.type = cudaMemLocationTypeDevice;
        loc.id = d;
        CHECK(cudaMemAdvise(mm, N, cudaMemAdviseSetPreferredLocation, loc));
        CHECK(cudaMemAdvise(mm, N, cudaMemAdviseSetAccessedBy, loc));
        CHECK(cudaMemPrefetchAsync(mm, N, loc, 0, 0));
        CHECK(cudaStreamAttachMemAsync(0, mm, 0, cudaMemAttachGlobal));
        CHECK(cudaDeviceSynchronize());
        expect_attr(mm, cudaMemoryTypeManaged, d);

        CHECK(cudaMallocHost(&hm, N));
        expect_attr(hm, cudaMemoryTypeHost, d);
        CHECK(cudaHostAlloc(&ha, N, cudaHostAllocMapped | cudaHostAllocPortable));
        void *mapped = NULL;
        CHECK(cudaHostGetDevicePointer(&mapped, ha, 0));
        EXPECT(mapped != NULL);

        // A distinct slice of a static buffer per device: registration is
        // per range.
        char *reg = pageable + d * 8192;
        CHECK(cudaHostRegister(reg, 8192, cudaHostRegisterDefault));
        expect_attr(reg, cudaMemoryTypeHost, d);
        CHECK(cudaHostUnregister(reg));
        expect_attr(reg, cudaMemoryTypeUnregistered, cudaInvalidDeviceId);

        cudaStream_t s;
        CHECK(cudaStreamCreate(&s));
        CHECK(cudaMallocAsync(&am, N, s));
        CHECK(cudaStreamSynchronize(s));
        expect_attr(am, cudaMemoryTypeDevice, d);
        CHECK(cudaMemsetAsync(am, 0, N, s));
        CHECK(cudaFreeAsync(am, s));

        // An explicit pool on this device.
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        cudaMemPool_t pool;
        CHECK(cudaMemPoolCreate(&pool, &props));
        void *pm = NULL;
        CHECK(cudaMallocFromPoolAsync(&pm, N, pool, s));
        CHECK(cudaStreamSynchronize(s));
        expect_attr(pm, cudaMemoryTypeDevice, d);
        CHECK(cudaFreeAsync(pm, s));
        CHECK(cudaStreamSynchronize(s));
        unsigned long long thr = 1 << 20, got = 0;
        CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
        CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &got));
        EXPECT(got == thr);
        CHECK(cudaMemPoolTrimTo(pool, 0));
        cudaMemAccessFlags af = cudaMemAccessFlagsProtNone;
        cudaMemLocation self = props.location;
        CHECK(cudaMemPoolGetAccess(&af, pool, &self));
        EXPECT(af == cudaMemAccessFlagsProtReadWrite);
        // The device's current pool can be replaced, and cudaMallocAsync then
        // allocates from it.
        CHECK(cudaDeviceSetMemPool(d, pool));
        cudaMemPool_t got_pool = NULL;
        CHECK(cudaDeviceGetMemPool(&got_pool, d));
        EXPECT(got_pool == pool);
        CHECK(cudaMallocAsync(&pm, 64, s));
        CHECK(cudaFreeAsync(pm, s));
        CHECK(cudaStreamSynchronize(s));
        cudaMemPool_t dflt = NULL;
        CHECK(cudaDeviceGetDefaultMemPool(&dflt, d));
        CHECK(cudaDeviceSetMemPool(d, dflt));
        CHECK(cudaMemPoolDestroy(pool));
        cudaMemPool_t defpool = NULL, curpool = NULL;
        CHECK(cudaDeviceGetDefaultMemPool(&defpool, d));
        CHECK(cudaDeviceGetMemPool(&curpool, d));
        EXPECT(defpool != NULL && defpool == curpool);
        CHECK(cudaStreamDestroy(s));

        size_t freeb = 0, total = 0;
        CHECK(cudaMemGetInfo(&freeb, &total));
        EXPECT(total > 0 && freeb <= total);

        CHECK(cudaFree(dm));
        CHECK(cudaFree(pitched));
        CHECK(cudaFree(mm));
        CHECK(cudaFreeHost(hm));
        CHECK(cudaFreeHost(ha));
    }
    CHECK(cudaFree(NULL));
    void *z = (void *)1;
    CHECK(cudaMalloc(&z, 0));
    EXPECT(z == NULL);
    EXPECT_ERR(cudaMemcpy(pageable, pageable + 8, 8, (cudaMemcpyKind)42), cudaErrorInvalidMemcpyDirection);
    CHECK(cudaDeviceSynchronize());
    printf("ok\n");
    return 0;
}
