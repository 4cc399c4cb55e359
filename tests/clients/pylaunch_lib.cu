// A CUDA library a stdlib-only Python script drives through ctypes
// (pylaunch.py): every CPython version can run it on the sim.  It pushes
// NVTX ranges (header-only nvtx3, as PyTorch) around its launch.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

__global__ void touch(float *p, int n)
{
    int i = threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

static int entered, holding, launched;

extern "C" {
void *alloc_on(int dev, int n)
{
    void *p = 0;
    cudaSetDevice(dev);
    cudaMalloc(&p, n * sizeof(float));
    return p;
}

int launch_on(int dev, void *p, int n)
{
    cudaSetDevice(dev);
    nvtxRangePushA("pylaunch.outer");
    nvtxRangePushA("pylaunch.inner");
    touch<<<1, 32>>>((float *)p, n);
    nvtxRangePop();
    nvtxRangePop();
    return (int)cudaGetLastError();
}

// Called with the GIL released (ctypes.CDLL) on a thread: waits until the
// main thread holds the GIL, then launches.
void launch_when_held(int dev, void *p, int n)
{
    __atomic_store_n(&entered, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
        usleep(1000);
    launch_on(dev, p, n);
    __atomic_store_n(&launched, 1, __ATOMIC_RELEASE);
}

int thread_entered(void) { return __atomic_load_n(&entered, __ATOMIC_ACQUIRE); }

// Called with the GIL held (ctypes.PyDLL): keeps it until the launch is done.
void hold_gil(void)
{
    __atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&launched, __ATOMIC_ACQUIRE))
        usleep(1000);
}
}
