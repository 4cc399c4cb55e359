/* Memory on the simulated GPUs (SIMCUDA_DEVICES=4): every allocation kind on
 * every device with its pointer attributes, distinct unified addresses, peer
 * copies with the right bytes, memsets, 2D copies, pools, VMM, IPC, managed
 * memory, host registration, and a million live small allocations. */
#include "drv_check.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static CUcontext ctx[4];

static void attrs(CUdeviceptr p, int dev, unsigned type, int managed)
{
    unsigned t = 99;
    int ord = -9;
    bool m = !managed;
    CUcontext c = NULL;
    OK(cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
    EQ(t, type);
    OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p));
    EQ(ord, dev);
    OK(cuPointerGetAttribute(&m, CU_POINTER_ATTRIBUTE_IS_MANAGED, p));
    EQ(m, managed);
    OK(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, p));
    CUmemoryPool pool = NULL;
    OK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
    TRUE(pool ? c == NULL : c != NULL);     /* pool memory belongs to no context (README, "Pointer queries") */
    /* interior pointers resolve to the allocation */
    CUdeviceptr start = 0;
    OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p + 3));
    EQ(start, p);
    /* the batch form */
    CUpointer_attribute which[2] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL };
    unsigned t2 = 0;
    int ord2 = -9;
    void *data[2] = { &t2, &ord2 };
    OK(cuPointerGetAttributes(2, which, data, p + 1));
    EQ(t2, type);
    EQ(ord2, dev);
}

static void kinds(void)
{
    CUdeviceptr seen[64];
    int nseen = 0;
    for (int d = 0; d < 4; d++) {
        MUST(cuCtxSetCurrent(ctx[d]));
        CUdeviceptr a, pitchp, m, pa, fa;
        size_t pitch;
        void *h;
        OK(cuMemAlloc(&a, 1000));
        attrs(a, d, CU_MEMORYTYPE_DEVICE, 0);
        OK(cuMemAllocPitch(&pitchp, &pitch, 100, 10, 4));
        TRUE(pitch >= 100);
        attrs(pitchp, d, CU_MEMORYTYPE_DEVICE, 0);
        OK(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
        attrs(m, d, CU_MEMORYTYPE_DEVICE, 1);
        OK(cuMemHostAlloc(&h, 4096, CU_MEMHOSTALLOC_PORTABLE));
        attrs((CUdeviceptr)(uintptr_t)h, d, CU_MEMORYTYPE_HOST, 0);
        OK(cuMemAllocAsync(&pa, 512, NULL));
        attrs(pa, d, CU_MEMORYTYPE_DEVICE, 0);
        CUmemoryPool pool = NULL, defpool = NULL;
        OK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, pa));
        OK(cuDeviceGetDefaultMemPool(&defpool, d));
        TRUE(pool == defpool && pool != NULL);
        OK(cuMemAllocFromPoolAsync(&fa, 512, defpool, NULL));
        attrs(fa, d, CU_MEMORYTYPE_DEVICE, 0);
        CUdeviceptr all[] = { a, pitchp, m, (CUdeviceptr)(uintptr_t)h, pa, fa };
        for (unsigned i = 0; i < 6; i++) {
            for (int j = 0; j < nseen; j++)
                TRUE(seen[j] != all[i]);
            seen[nseen++] = all[i];
        }
        /* device memory is host-addressable in the sim: the bytes are real */
        OK(cuMemsetD32(a, 0xdeadbeef, 250));
        uint32_t back[250];
        OK(cuMemcpyDtoH(back, a, sizeof back));
        TRUE(back[0] == 0xdeadbeef && back[249] == 0xdeadbeef);
        CUdeviceptr base;
        size_t size;
        OK(cuMemGetAddressRange(&base, &size, a + 10));
        EQ(base, a);
        EQ(size, 1000);
        OK(cuMemFree(a));
        EXPECT(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
        nseen = 0;   /* freed addresses may be reused */
        EXPECT(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, a), CUDA_ERROR_INVALID_VALUE);
        OK(cuMemFree(pitchp));
        OK(cuMemFree(m));
        OK(cuMemFreeHost(h));
        OK(cuMemFreeAsync(pa, NULL));
        OK(cuMemFreeAsync(fa, NULL));
    }
    /* registered host memory */
    static char buf[3 * 4096] __attribute__((aligned(4096)));
    OK(cuMemHostRegister(buf, sizeof buf, 0));
    EXPECT(cuMemHostRegister(buf + 4096, 100, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    attrs((CUdeviceptr)(uintptr_t)buf, 3, CU_MEMORYTYPE_HOST, 0);
    CUdeviceptr dp;
    OK(cuMemHostGetDevicePointer(&dp, buf, 0));
    EQ(dp, (uintptr_t)buf);
    OK(cuMemHostUnregister(buf));
    EXPECT(cuMemHostUnregister(buf), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    /* an unmapped range cannot be registered */
    void *gone = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap((char *)gone + 4096, 4096);
    EXPECT(cuMemHostRegister(gone, 3 * 4096, 0), CUDA_ERROR_INVALID_VALUE);
    munmap(gone, 4096);
    munmap((char *)gone + 8192, 4096);
    /* a plain host pointer is no CUDA pointer */
    unsigned t;
    EXPECT(cuPointerGetAttribute(&t, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)buf), CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute which = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
    void *data = &t;
    t = 99;
    OK(cuPointerGetAttributes(1, &which, &data, (CUdeviceptr)(uintptr_t)buf));
    EQ(t, 0);
}

static void copies(void)
{
    enum { N = 1 << 20 };
    CUdeviceptr d0, d1;
    MUST(cuCtxSetCurrent(ctx[0]));
    MUST(cuMemAlloc(&d0, N));
    MUST(cuCtxSetCurrent(ctx[1]));
    MUST(cuMemAlloc(&d1, N));
    unsigned char *src = malloc(N), *dst = malloc(N);
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    OK(cuMemcpyHtoD(d0, src, N));
    OK(cuMemcpyPeer(d1, ctx[1], d0, ctx[0], N));
    memset(dst, 0, N);
    OK(cuMemcpyDtoH(dst, d1, N));
    TRUE(!memcmp(src, dst, N));
    /* async peer copy and unified cuMemcpy */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuMemsetD8Async(d1, 0, N, s));
    OK(cuMemcpyPeerAsync(d1 + 16, ctx[1], d0 + 16, ctx[0], 4096, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)dst, d1, N));
    TRUE(dst[15] == 0 && dst[16] == src[16] && dst[4111] == src[4111] && dst[4112] == 0);
    OK(cuMemcpyDtoD(d1, d0, N));
    OK(cuMemcpyDtoH(dst, d1, N));
    TRUE(!memcmp(src, dst, N));
    /* out of range */
    EXPECT(cuMemcpyDtoH(dst, d1 + N - 10, 20), CUDA_ERROR_INVALID_VALUE);
    /* 2D with pitches */
    CUdeviceptr pd;
    size_t pitch;
    OK(cuMemAllocPitch(&pd, &pitch, 64, 8, 4));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = src;
    c.srcPitch = 64;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pd;
    c.dstPitch = pitch;
    c.WidthInBytes = 64;
    c.Height = 8;
    OK(cuMemcpy2D(&c));
    unsigned char row[64];
    OK(cuMemcpyDtoH(row, pd + 7 * pitch, 64));
    TRUE(!memcmp(row, src + 7 * 64, 64));
    OK(cuMemsetD2D8(pd, pitch, 0x5a, 64, 8));
    OK(cuMemcpyDtoH(row, pd + 3 * pitch, 64));
    TRUE(row[0] == 0x5a && row[63] == 0x5a);
    OK(cuMemFree(pd));
    OK(cuStreamDestroy(s));
    OK(cuMemFree(d1));
    MUST(cuCtxSetCurrent(ctx[0]));
    OK(cuMemFree(d0));
    free(src);
    free(dst);
}

static void pools_vmm_ipc(void)
{
    MUST(cuCtxSetCurrent(ctx[0]));
    /* pools: the owner always has access, others only when granted */
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 1;
    CUmemoryPool pool;
    OK(cuMemPoolCreate(&pool, &props));
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    CUmemAccess_flags f;
    OK(cuMemPoolGetAccess(&f, pool, &loc));
    EQ(f, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CUmemAccessDesc acc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemPoolSetAccess(pool, &acc, 1));
    OK(cuMemPoolGetAccess(&f, pool, &loc));
    EQ(f, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUdeviceptr pp;
    OK(cuMemAllocFromPoolAsync(&pp, 1 << 16, pool, NULL));
    int ord;
    OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, pp));
    EQ(ord, 1);
    cuuint64_t used = 0;
    OK(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    TRUE(used >= (1 << 16));
    OK(cuMemFreeAsync(pp, NULL));
    OK(cuMemPoolDestroy(pool));

    /* VMM: reserve, create, map, grant */
    CUmemAllocationProp ap;
    memset(&ap, 0, sizeof ap);
    ap.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    ap.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ap.location.id = 2;
    ap.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran;
    OK(cuMemGetAllocationGranularity(&gran, &ap, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    TRUE(gran > 0);
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, 4 * gran, 0, 0, 0));
    CUmemGenericAllocationHandle h;
    OK(cuMemCreate(&h, 2 * gran, &ap, 0));
    OK(cuMemMap(va, 2 * gran, 0, h, 0));
    OK(cuMemMap(va + 2 * gran, 2 * gran, 0, h, 0));   /* one handle mapped twice */
    CUmemAccessDesc vacc = { { CU_MEM_LOCATION_TYPE_DEVICE, 2 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(va, 4 * gran, &vacc, 1));
    unsigned long long vf = 9;
    CUmemLocation l2 = { CU_MEM_LOCATION_TYPE_DEVICE, 2 }, l0 = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    OK(cuMemGetAccess(&vf, &l2, va + 5));
    EQ(vf, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemGetAccess(&vf, &l0, va + 5));
    EQ(vf, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    OK(cuMemsetD8(va + 100, 0x42, 1));
    unsigned char byte = 0;
    OK(cuMemcpyDtoH(&byte, va + 2 * gran + 100, 1));   /* same physical page */
    EQ(byte, 0x42);
    OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 2 * gran));
    EQ(ord, 2);
    CUmemAllocationProp back;
    OK(cuMemGetAllocationPropertiesFromHandle(&back, h));
    EQ(back.location.id, 2);
    /* export as a file descriptor, import, map: the same bytes */
    int fd = -1;
    OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    TRUE(fd >= 0);
    CUmemGenericAllocationHandle h2;
    OK(cuMemImportFromShareableHandle(&h2, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr va2;
    OK(cuMemAddressReserve(&va2, 2 * gran, 0, 0, 0));
    OK(cuMemMap(va2, 2 * gran, 0, h2, 0));
    byte = 0;
    OK(cuMemcpyDtoH(&byte, va2 + 100, 1));
    EQ(byte, 0x42);
    OK(cuMemUnmap(va2, 2 * gran));
    OK(cuMemRelease(h2));
    OK(cuMemAddressFree(va2, 2 * gran));
    close(fd);
    OK(cuMemRelease(h));          /* the mappings keep it alive */
    OK(cuMemcpyDtoH(&byte, va + 100, 1));
    EQ(byte, 0x42);
    OK(cuMemUnmap(va, 4 * gran));
    OK(cuMemAddressFree(va, 4 * gran));

    /* IPC in one process: a second mapping of the same bytes */
    CUdeviceptr src;
    MUST(cuCtxSetCurrent(ctx[3]));
    OK(cuMemAlloc(&src, 4096));
    OK(cuMemsetD8(src, 0x17, 4096));
    CUipcMemHandle ih;
    OK(cuIpcGetMemHandle(&ih, src));
    MUST(cuCtxSetCurrent(ctx[0]));
    CUdeviceptr opened;
    OK(cuIpcOpenMemHandle(&opened, ih, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    TRUE(opened != src);
    OK(cuMemcpyDtoH(&byte, opened + 4000, 1));
    EQ(byte, 0x17);
    OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, opened));
    EQ(ord, 3);
    OK(cuIpcCloseMemHandle(opened));
    MUST(cuCtxSetCurrent(ctx[3]));
    OK(cuMemFree(src));

    /* IPC events */
    CUevent ev, ev2;
    OK(cuEventCreate(&ev, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    CUipcEventHandle eh;
    OK(cuIpcGetEventHandle(&eh, ev));
    OK(cuIpcOpenEventHandle(&ev2, eh));
    OK(cuEventRecord(ev2, NULL));
    OK(cuEventSynchronize(ev2));
    OK(cuEventDestroy(ev2));
    OK(cuEventDestroy(ev));

    /* pool sharing: export the pool and a pointer, import both */
    CUmemPoolProps sp;
    memset(&sp, 0, sizeof sp);
    sp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    sp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    sp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    sp.location.id = 3;
    CUmemoryPool shared, imported;
    OK(cuMemPoolCreate(&shared, &sp));
    CUdeviceptr sptr, iptr;
    OK(cuMemAllocFromPoolAsync(&sptr, 4096, shared, NULL));
    OK(cuMemsetD8(sptr, 0x66, 4096));
    int pfd = -1;
    OK(cuMemPoolExportToShareableHandle(&pfd, shared, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    OK(cuMemPoolImportFromShareableHandle(&imported, (void *)(uintptr_t)pfd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CUmemPoolPtrExportData pd;
    OK(cuMemPoolExportPointer(&pd, sptr));
    OK(cuMemPoolImportPointer(&iptr, imported, &pd));
    TRUE(iptr != sptr);
    byte = 0;
    OK(cuMemcpyDtoH(&byte, iptr + 4095, 1));
    EQ(byte, 0x66);
    CUmemoryPool which_pool = NULL;
    OK(cuPointerGetAttribute(&which_pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, iptr));
    TRUE(which_pool == imported);
    OK(cuMemFreeAsync(iptr, NULL));
    OK(cuMemFreeAsync(sptr, NULL));
    OK(cuMemPoolDestroy(imported));
    OK(cuMemPoolDestroy(shared));
    close(pfd);
}

static void many_small(void)
{
    enum { N = 1000000 };
    MUST(cuCtxSetCurrent(ctx[1]));
    CUdeviceptr *p = malloc(N * sizeof *p);
    int ok = 1;
    for (int i = 0; i < N && ok; i++)
        ok = cuMemAlloc(&p[i], 16) == CUDA_SUCCESS;
    TRUE(ok);
    int ord = -1;
    OK(cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p[N / 2] + 8));
    EQ(ord, 1);
    for (int i = 0; i < N && ok; i++)
        ok = cuMemFree(p[i]) == CUDA_SUCCESS;
    TRUE(ok);
    /* freed addresses are reused */
    CUdeviceptr q;
    OK(cuMemAlloc(&q, 16));
    int reused = 0;
    for (int i = 0; i < N && !reused; i++)
        reused = p[i] == q;
    TRUE(reused);
    OK(cuMemFree(q));
    free(p);
}

int main(void)
{
    MUST(cuInit(0));
    for (int i = 0; i < 4; i++)
        MUST(cuDevicePrimaryCtxRetain(&ctx[i], i));
    kinds();
    copies();
    pools_vmm_ipc();
    many_small();
    size_t fr, tot;
    MUST(cuCtxSetCurrent(ctx[0]));
    OK(cuMemGetInfo(&fr, &tot));
    TRUE(fr <= tot && tot > 0);
    return drv_done("drv_memory");
}
