/* simlib: the driver, the code image and notes of a sim library
 * (simlib.h, sim/libs/README.md). */
#include "simlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct simlib_driver simlib_drv;

static pthread_once_t drv_once = PTHREAD_ONCE_INIT;
static int drv_status = -1;
static char drv_problem[160];

static void say(const char *lib, const char *text)
{
    char line[400];
    int n = snprintf(line, sizeof line, "simcuda: %s: %s\n", lib, text);
    if (n <= 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    (void)!write(2, line, len);
}

void simlib_note_once(atomic_flag *said, const char *lib, const char *text)
{
    if (!atomic_flag_test_and_set_explicit(said, memory_order_relaxed))
        say(lib, text);
}

/* The driver as NVIDIA's runtime (static in NVIDIA's libraries) binds it:
 * dlopen by soname, then one cuGetProcAddress_v2 per entry point at the
 * version of its ABI (simlib.h), so a tool that hands out its own entry
 * points through cuGetProcAddress (devcheck) sees every call. */
static void bind_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(drv_problem, sizeof drv_problem, "cannot load libcuda.so.1");
        return;
    }
    __typeof__(&cuGetProcAddress) gpa;
    void *p = dlsym(h, "cuGetProcAddress_v2");
    memcpy(&gpa, &p, sizeof gpa);
    if (!gpa) {
        snprintf(drv_problem, sizeof drv_problem, "libcuda.so.1 has no cuGetProcAddress_v2");
        return;
    }
    CUdriverProcAddressQueryResult q;
#define SIMLIB_BIND(n, v)                                                                                  \
    if (gpa(#n, &p, v, CU_GET_PROC_ADDRESS_DEFAULT, &q) != CUDA_SUCCESS || !p) {                           \
        snprintf(drv_problem, sizeof drv_problem, "the driver has no %s (version %d)", #n, v);             \
        return;                                                                                            \
    }                                                                                                      \
    memcpy(&simlib_drv.n, &p, sizeof p);
    SIMLIB_DRIVER(SIMLIB_BIND)
#undef SIMLIB_BIND
    drv_status = 0;
}

int simlib_driver(const char *lib)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    pthread_once(&drv_once, bind_driver);
    if (drv_status != 0)
        simlib_note_once(&said, lib, drv_problem);
    return drv_status;
}

int simlib_current_device(void)
{
    CUcontext c = NULL;
    CUdevice d;
    if (simlib_drv.cuCtxGetCurrent(&c) != CUDA_SUCCESS || !c) {
        int n = 0;
        if (simlib_drv.cuInit(0) != CUDA_SUCCESS || simlib_drv.cuDeviceGetCount(&n) != CUDA_SUCCESS || n < 1 ||
            simlib_drv.cuDevicePrimaryCtxRetain(&c, 0) != CUDA_SUCCESS ||
            simlib_drv.cuCtxSetCurrent(c) != CUDA_SUCCESS)
            return -1;
    }
    return simlib_drv.cuCtxGetDevice(&d) == CUDA_SUCCESS ? (int)d : -1;
}

static struct simlib_image *loading;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static void load_image(void)
{
    struct simlib_image *img = loading;
    img->status = simlib_drv.cuLibraryLoadData(&img->handle, img->data, NULL, NULL, 0, NULL, NULL, 0);
    if (img->status != CUDA_SUCCESS) {
        const char *e = "?";
        char text[160];
        simlib_drv.cuGetErrorName(img->status, &e);
        snprintf(text, sizeof text, "cannot load its kernels: cuLibraryLoadData returned %s", e);
        say(img->lib, text);
    }
}

CUresult simlib_kernel(struct simlib_image *img, const char *name, CUkernel *k)
{
    for (unsigned i = 0; i < SIMLIB_KERNELS; i++)
        if (atomic_load_explicit(&img->kname[i], memory_order_acquire) == name) {
            *k = img->kernel[i];
            return CUDA_SUCCESS;
        }
    if (simlib_driver(img->lib) != 0)
        return CUDA_ERROR_NOT_INITIALIZED;
    /* pthread_once takes no argument: the image goes through `loading`,
     * one image at a time */
    pthread_mutex_lock(&load_lock);
    loading = img;
    pthread_once(&img->once, load_image);
    pthread_mutex_unlock(&load_lock);
    if (img->status != CUDA_SUCCESS)
        return img->status;
    CUresult r = simlib_drv.cuLibraryGetKernel(k, img->handle, name);
    unsigned i;
    if (r == CUDA_SUCCESS && (i = atomic_fetch_add(&img->nkernels, 1)) < SIMLIB_KERNELS) {
        img->kernel[i] = *k;        /* published by the name's release store */
        atomic_store_explicit(&img->kname[i], name, memory_order_release);
    }
    return r;
}

CUresult simlib_launch(struct simlib_image *img, const char *name, unsigned long long threads, CUstream stream,
                       void **params)
{
    CUkernel k;
    CUresult r = simlib_kernel(img, name, &k);
    if (r != CUDA_SUCCESS)
        return r;
    unsigned long long blocks = (threads + 255) / 256;
    if (blocks == 0)
        blocks = 1;
    if (blocks > 65535)
        blocks = 65535;
    /* a CUkernel runs in its stream's context (cuda.h, cuLaunchKernel) */
    return simlib_drv.cuLaunchKernel((CUfunction)k, (unsigned)blocks, 1, 1, 256, 1, 1, 0, stream, params, NULL);
}
