/* Device memory shared between processes of one machine.
 *
 * Every device's memory is a memfd arena (mem.c).  Another process of the
 * same user maps the same pages by opening the exporter's descriptor through
 * /proc/<pid>/fd/<fd>, so no broker process is needed:
 *   - cuIpcGetMemHandle's 64 bytes name the exporter's pid, the arena's
 *     descriptor, the offset and the size (struct sim_ipc_mem);
 *   - a pool's shareable handle (cuMemPoolExportToShareableHandle, a POSIX
 *     file descriptor the program passes over a unix socket) is a memfd
 *     whose name carries the exporter's pid, device, arena descriptor and
 *     pool id; cuMemPoolExportPointer's data name the allocation in it;
 *   - a VMM handle's descriptor is its memory (mem.c imports it directly).
 * The importer registers the mapping as IPC / pool-imported memory of the
 * exporter's device number (devices are the machine's, the same in every
 * process).  What a process cannot open is said in one line. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void sim_ipc_fd_name(int fd, char *buf, size_t n)
{
    char path[64], link[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t l = readlink(path, link, sizeof link - 1);
    buf[0] = 0;
    if (l <= 0)
        return;
    link[l] = 0;
    const char *name = strncmp(link, "/memfd:", 7) ? link : link + 7;
    snprintf(buf, n, "%s", name);
    char *del = strstr(buf, " (deleted)");
    if (del)
        *del = 0;
}

void *sim_ipc_map(int pid, int fd, uint64_t off, size_t len, char *why, size_t nwhy)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        if (e == ENOENT && kill(pid, 0) != 0)
            snprintf(why, nwhy, "the exporting process %d has exited", pid);
        else
            snprintf(why, nwhy, "cannot open process %d's device memory (%s: %s; the sim shares it through /proc, "
                     "which needs the same user)", pid, path, strerror(e));
        return MAP_FAILED;
    }
    char name[128];
    sim_ipc_fd_name(f, name, sizeof name);
    if (strncmp(name, "simcuda-dev", 11)) {
        snprintf(why, nwhy, "descriptor %d of process %d is not a sim device arena (it is '%s')", fd, pid, name);
        close(f);
        return MAP_FAILED;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, (off_t)off);
    int e = errno;
    close(f);
    if (p == MAP_FAILED)
        snprintf(why, nwhy, "mapping %zu bytes of process %d's device memory: %s", len, pid, strerror(e));
    else
        madvise(p, len, MADV_DONTFORK);
    return p;
}

/* Maps the pages holding [off, off + rsize) of an arena of process pid;
 * *delta is the allocation's offset in the mapping. */
static void *map_alloc(int pid, int fd, uint64_t off, uint64_t rsize, size_t *len, size_t *delta, char *why, size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    *delta = off % pg;
    *len = (*delta + rsize + pg - 1) / pg * pg;
    return sim_ipc_map(pid, fd, off - *delta, *len, why, n);
}

/* Maps the allocation described by src of another process and registers
 * it (as pool-imported memory of pool, or as IPC memory). */
static CUresult adopt(const char *api, CUdeviceptr *out, int pid, int fd, const struct sim_ipc_mem *src,
                      struct sim_mempool *pool, unsigned flags)
{
    char why[256];
    size_t len, delta;
    void *map = map_alloc(pid, fd, src->off, src->rsize, &len, &delta, why, sizeof why);
    if (map == MAP_FAILED) {
        sim_log(CU_LOG_LEVEL_ERROR, "%s: %s: CUDA_ERROR_INVALID_VALUE", api, why);
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_lock();
    CUresult r = sim_mem_adopt(map, len, delta, src, pool, flags, out);
    sim_unlock();
    if (r != CUDA_SUCCESS) {
        munmap(map, len);
        const char *name = NULL;
        cuGetErrorName(r, &name);
        sim_log(CU_LOG_LEVEL_ERROR, "%s: memory of process %d on device %d: %s", api, pid, src->dev,
                name ? name : "error");
    }
    return r;
}

CUresult sim_ipc_open_foreign(CUdeviceptr *out, const struct sim_ipc_mem *pl, unsigned flags)
{
    return adopt("cuIpcOpenMemHandle", out, pl->pid, pl->fd, pl, NULL, flags);
}

CUresult sim_ipc_pool_import(CUmemoryPool *out, int fd)
{
    char name[128];
    struct sim_pool_origin o;
    sim_ipc_fd_name(fd, name, sizeof name);
    if (sscanf(name, "simcuda-pool:%d:%d:%d:%llu", &o.pid, &o.dev, &o.fd, &o.pool) != 4) {
        sim_log(CU_LOG_LEVEL_ERROR, "cuMemPoolImportFromShareableHandle: descriptor %d is not from "
                "cuMemPoolExportToShareableHandle (it is '%s'): CUDA_ERROR_INVALID_VALUE", fd, name);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (o.pid == (int)getpid()) {
        sim_log(CU_LOG_LEVEL_ERROR, "cuMemPoolImportFromShareableHandle: the exported pool was destroyed: "
                "CUDA_ERROR_INVALID_VALUE");
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_lock();
    CUresult r = o.dev >= 0 && o.dev < sim_g.ndev ? sim_mem_pool_foreign(&o, out) : CUDA_ERROR_INVALID_DEVICE;
    sim_unlock();
    if (r == CUDA_ERROR_INVALID_DEVICE)
        sim_log(CU_LOG_LEVEL_ERROR, "cuMemPoolImportFromShareableHandle: the pool is on device %d, this process "
                "has %d (SIMCUDA_DEVICES): CUDA_ERROR_INVALID_DEVICE", o.dev, sim_g.ndev);
    return r;
}

CUresult sim_ipc_pool_import_ptr(CUdeviceptr *out, CUmemoryPool pool, const struct sim_ipc_ptr *pl)
{
    struct sim_pool_origin o;
    sim_lock();
    struct sim_mempool *p = sim_mem_pool_origin(pool, &o);
    sim_unlock();
    if (!p) {
        sim_log(CU_LOG_LEVEL_ERROR, "cuMemPoolImportPointer: %p is not a pool: CUDA_ERROR_INVALID_VALUE", (void *)pool);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (o.pid != pl->pid || o.pool != pl->pool) {
        sim_log(CU_LOG_LEVEL_ERROR, "cuMemPoolImportPointer: the pointer is from pool %llu of process %d, the pool "
                "was imported from %s%d's pool %llu: CUDA_ERROR_INVALID_VALUE", (unsigned long long)pl->pool,
                pl->pid, o.pid ? "process " : "this process, not ", o.pid ? o.pid : pl->pid, o.pool);
        return CUDA_ERROR_INVALID_VALUE;
    }
    struct sim_ipc_mem src = { "SIMIPC", pl->pid, o.dev, pl->id, pl->base, pl->size, pl->rsize, pl->off, pl->fd };
    return adopt("cuMemPoolImportPointer", out, pl->pid, pl->fd, &src, p, 0);
}
