// Device memory shared between two processes, in the shapes of NVIDIA's
// simpleIPC, streamOrderedAllocationIPC and memMapIPCDrv: the parent
// exports (cudaIpcGetMemHandle + an IPC event, a pool's POSIX descriptor and
// a pointer of it, a VMM handle's descriptor), starts itself again as the
// child (fork + exec, as CUDA requires), which imports each, writes through
// it with a kernel (host twin) or a copy, and exits; the parent then reads
// the child's writes.  The child also launches on device 2 into device 0's
// IPC memory opened without peer access: that launch faults.
//   rt_ipc               parent and child, prints "ok"
//   rt_ipc gone          opens a handle of an exited process (one line says so)
#include "rt_check.h"

#include <cuda.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fill(int *p, int v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

extern "C" __attribute__((visibility("default"), used)) void
simcuda_twin_fill(void **args, const unsigned grid[3], const unsigned block[3])
{
    int *p = *(int **)args[0];
    int v = *(int *)args[1], n = *(int *)args[2];
    (void)grid;
    (void)block;
    for (int i = 0; i < n; i++)
        p[i] = v;
}

#define N 1024
#define DRV(call) EXPECT((call) == CUDA_SUCCESS)

struct exported {
    cudaIpcMemHandle_t mem;
    cudaIpcEventHandle_t ev;
    cudaMemPoolPtrExportData ptr;
    size_t vmm_size;
};

static void send_fds(int sock, const struct exported *x, int fd1, int fd2)
{
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = { (void *)x, sizeof *x };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = { fd1, fd2 };
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    EXPECT(sendmsg(sock, &m, 0) == (ssize_t)sizeof *x);
}

static void recv_fds(int sock, struct exported *x, int *fd1, int *fd2)
{
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = { x, sizeof *x };
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    EXPECT(recvmsg(sock, &m, 0) == (ssize_t)sizeof *x);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    EXPECT(c && c->cmsg_type == SCM_RIGHTS);
    int fds[2];
    memcpy(fds, CMSG_DATA(c), sizeof fds);
    *fd1 = fds[0];
    *fd2 = fds[1];
}

static int child(int sock)
{
    struct exported x;
    int pool_fd, vmm_fd;
    recv_fds(sock, &x, &pool_fd, &vmm_fd);

    // simpleIPC: device 1 opens device 0's memory with lazy peer access
    CHECK(cudaSetDevice(1));
    int *p = NULL;
    CHECK(cudaIpcOpenMemHandle((void **)&p, x.mem, cudaIpcMemLazyEnablePeerAccess));
    cudaEvent_t ev;
    CHECK(cudaIpcOpenEventHandle(&ev, x.ev));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamWaitEvent(s, ev, 0));
    int first = -1;
    CHECK(cudaMemcpy(&first, p, sizeof first, cudaMemcpyDeviceToHost));
    EXPECT(first == 5);                     // the parent's memset
    fill<<<N / 256, 256, 0, s>>>(p, 11, N);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ev, s));
    CHECK(cudaStreamSynchronize(s));

    // streamOrderedAllocationIPC: import the pool and the pointer
    cudaMemPool_t pool;
    CHECK(cudaMemPoolImportFromShareableHandle(&pool, (void *)(uintptr_t)pool_fd,
                                               cudaMemHandleTypePosixFileDescriptor, 0));
    cudaMemAccessDesc acc = {};
    acc.location.type = cudaMemLocationTypeDevice;
    acc.location.id = 1;
    acc.flags = cudaMemAccessFlagsProtReadWrite;
    CHECK(cudaMemPoolSetAccess(pool, &acc, 1));
    int *q = NULL;
    CHECK(cudaMemPoolImportPointer((void **)&q, pool, &x.ptr));
    fill<<<N / 256, 256, 0, s>>>(q, 22, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(q));

    // memMapIPCDrv: import the VMM handle, map it, grant device 1
    CUmemGenericAllocationHandle h;
    DRV(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)vmm_fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUmemAllocationProp prop;
    DRV(cuMemGetAllocationPropertiesFromHandle(&prop, h));
    EXPECT(prop.location.id == 3);
    CUdeviceptr va;
    DRV(cuMemAddressReserve(&va, x.vmm_size, 0, 0, 0));
    DRV(cuMemMap(va, x.vmm_size, 0, h, 0));
    CUmemAccessDesc vacc = { { CU_MEM_LOCATION_TYPE_DEVICE, 1 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    DRV(cuMemSetAccess(va, x.vmm_size, &vacc, 1));
    fill<<<N / 256, 256, 0, s>>>((int *)(uintptr_t)va, 33, N);
    CHECK(cudaStreamSynchronize(s));
    DRV(cuMemUnmap(va, x.vmm_size));
    DRV(cuMemRelease(h));
    DRV(cuMemAddressFree(va, x.vmm_size));
    CHECK(cudaStreamDestroy(s));

    // device 2 with neither peer access nor lazy peer access: the launch faults
    CHECK(cudaSetDevice(2));
    int *r = NULL;
    CHECK(cudaIpcOpenMemHandle((void **)&r, x.mem, 0));
    fill<<<1, 1>>>(r, 99, 1);
    CHECK(cudaGetLastError());
    EXPECT_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);

    CHECK(cudaSetDevice(1));
    CHECK(cudaIpcCloseMemHandle(p));
    CHECK(cudaEventDestroy(ev));
    return 0;
}

static int gone(void)
{
    // a handle of a process that has exited
    pid_t k = fork();
    if (k == 0)
        _exit(0);
    waitpid(k, NULL, 0);
    int *p;
    CHECK(cudaMalloc(&p, 64));
    cudaIpcMemHandle_t mh;
    CHECK(cudaIpcGetMemHandle(&mh, p));
    memcpy(mh.reserved + 8, &k, sizeof k);  // the pid field of the sim's handle
    void *q;
    EXPECT_ERR(cudaIpcOpenMemHandle(&q, mh, cudaIpcMemLazyEnablePeerAccess), cudaErrorInvalidValue);
    printf("ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child"))
        return child(atoi(argv[2]));
    if (argc > 1 && !strcmp(argv[1], "gone"))
        return gone();

    CHECK(cudaSetDevice(0));
    int *p;
    CHECK(cudaMalloc(&p, N * sizeof(int)));
    CHECK(cudaMemset(p, 0, N * sizeof(int)));
    int five = 5;
    CHECK(cudaMemcpy(p, &five, sizeof five, cudaMemcpyHostToDevice));
    struct exported x;
    memset(&x, 0, sizeof x);
    CHECK(cudaIpcGetMemHandle(&x.mem, p));
    cudaEvent_t ev;
    CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
    CHECK(cudaIpcGetEventHandle(&x.ev, ev));

    cudaMemPoolProps pp = {};
    pp.allocType = cudaMemAllocationTypePinned;
    pp.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    pp.location.type = cudaMemLocationTypeDevice;
    pp.location.id = 0;
    cudaMemPool_t pool;
    CHECK(cudaMemPoolCreate(&pool, &pp));
    int pool_fd = -1;
    CHECK(cudaMemPoolExportToShareableHandle(&pool_fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
    int *q;
    CHECK(cudaMallocFromPoolAsync((void **)&q, N * sizeof(int), pool, 0));
    CHECK(cudaMemPoolExportPointer(&x.ptr, q));

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 3;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran;
    DRV(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    x.vmm_size = gran;
    CUmemGenericAllocationHandle h;
    DRV(cuMemCreate(&h, gran, &prop, 0));
    int vmm_fd = -1;
    DRV(cuMemExportToShareableHandle(&vmm_fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CUdeviceptr va;
    DRV(cuMemAddressReserve(&va, gran, 0, 0, 0));
    DRV(cuMemMap(va, gran, 0, h, 0));
    CUmemAccessDesc vacc = { { CU_MEM_LOCATION_TYPE_DEVICE, 3 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    DRV(cuMemSetAccess(va, gran, &vacc, 1));

    int sv[2];
    EXPECT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", sv[1]);
        execl("/proc/self/exe", argv[0], "child", fd, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    send_fds(sv[0], &x, pool_fd, vmm_fd);
    int st;
    EXPECT(waitpid(pid, &st, 0) == pid);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0);

    // the child's writes, seen through the parent's own pointers
    int got[N];
    CHECK(cudaMemcpy(got, p, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        EXPECT(got[i] == 11);
    CHECK(cudaMemcpy(got, q, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        EXPECT(got[i] == 22);
    DRV(cuMemcpyDtoH(got, va, sizeof got));
    for (int i = 0; i < N; i++)
        EXPECT(got[i] == 33);
    CHECK(cudaFreeAsync(q, 0));
    CHECK(cudaMemPoolDestroy(pool));
    CHECK(cudaFree(p));
    printf("ok\n");
    return 0;
}
