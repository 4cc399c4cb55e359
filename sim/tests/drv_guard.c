/* drv_guard: a host twin sees memory as its device does (sim/driver/guard.c).
 *
 * Checks, on 4 simulated GPUs without peer access:
 *  - the program's own SIGSEGV handler handles its faults before and after
 *    a faulting twin window (the sim's handler, once installed, chains to
 *    it), also one the program installs again after a window, and the next
 *    window still turns a twin's illegal access into a device fault;
 *  - a twin's SIGSEGV that is no device access (a page the program itself
 *    protects) reaches the program's handler, which repairs it, and the
 *    launch completes without a device fault;
 *  - a twin touching a reserved VMM range with nothing mapped, through a
 *    struct, faults like the GPU (sticky CUDA_ERROR_ILLEGAL_ADDRESS), no crash;
 *  - another thread's copy from memory a running window protects waits and
 *    completes with the right bytes;
 *  - a twin exported by an object loaded RTLD_LOCAL (invisible to
 *    dlsym(RTLD_DEFAULT)) is found, also when loaded after the first launch. */
#include "drv_check.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef KDIR
#error KDIR must name the directory holding drv_kernels.cubin and libdrv_guard_twin.so
#endif

struct drv_pair { void *a, *b; };

/* ---- twins ---- */
static void (*touch_hook)(void);
void simcuda_twin_touch(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid; (void)block;
    if (touch_hook)
        touch_hook();
    **(int **)args[0] = *(int *)args[1];
}

void simcuda_twin_mixed(void **args, const unsigned grid[3], const unsigned block[3])
{
    (void)grid; (void)block;
    struct drv_pair s = *(struct drv_pair *)args[2];
    if (s.a)
        *(volatile int *)s.a = *(int *)args[1];
}

/* ---- the program's own SIGSEGV handler ---- */
static sigjmp_buf jb;
static volatile sig_atomic_t prog_faults, repaired;
static void *own_page;              /* PROT_NONE until the handler repairs it */

static void prog_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig; (void)uc;
    prog_faults++;
    if (si->si_addr == own_page) {
        mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
        repaired++;
        return;
    }
    siglongjmp(jb, 1);
}

static volatile uintptr_t bad_address = 16;   /* no page there */
static void *ro_page;                           /* readable, not writable */
/* The program's own faults reach its handler: an address nothing maps, and
 * a write to a read-only page (readable: never to be retried). */
static int fault_outside_twin(void)
{
    int before = prog_faults;
    if (sigsetjmp(jb, 1) == 0)
        *(volatile int *)bad_address = 1;
    if (!ro_page)
        ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sigsetjmp(jb, 1) == 0)
        *(volatile int *)ro_page = 1;
    return prog_faults == before + 2;
}

static void install_prog_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = prog_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
}

/* ---- a copy from another thread while a window is open ---- */
static CUcontext c0, c1;
static CUdeviceptr big1;            /* on device 1 */
enum { BIG = 1 << 20 };
static atomic_int copier_ready;
static int copy_ok;                 /* read after pthread_join */

static void *copier(void *arg)
{
    (void)arg;
    unsigned *h = malloc(BIG);
    cuCtxSetCurrent(c1);
    atomic_store(&copier_ready, 1);
    CUresult r = cuMemcpyDtoH(h, big1, BIG);
    int ok = r == CUDA_SUCCESS;
    for (size_t i = 0; ok && i < BIG / 4; i++)
        ok = h[i] == 0xC0FFEEu;
    copy_ok = ok;
    free(h);
    return NULL;
}

static void wait_for_copier(void)
{
    for (int i = 0; i < 2000 && !atomic_load(&copier_ready); i++)
        usleep(1000);
    usleep(20000);                  /* let it reach the bytes */
}


int main(void)
{
    install_prog_handler();
    TRUE(fault_outside_twin());

    MUST(cuInit(0));
    CUdevice d0, d1;
    MUST(cuDeviceGet(&d0, 0));
    MUST(cuDeviceGet(&d1, 1));
    MUST(cuDevicePrimaryCtxRetain(&c0, d0));
    MUST(cuDevicePrimaryCtxRetain(&c1, d1));
    MUST(cuCtxSetCurrent(c1));
    MUST(cuMemAlloc(&big1, BIG));
    MUST(cuMemsetD32(big1, 0xC0FFEEu, BIG / 4));
    MUST(cuCtxSetCurrent(c0));
    char *cubin = drv_slurp(KDIR, "drv_kernels.cubin", NULL);
    CUmodule m;
    CUfunction touch, mixed, fill;
    MUST(cuModuleLoadData(&m, cubin));
    MUST(cuModuleGetFunction(&touch, m, "_Z5touchPii"));
    MUST(cuModuleGetFunction(&mixed, m, "_Z5mixedPfi8drv_paird"));
    MUST(cuModuleGetFunction(&fill, m, "_ZN3drv4fillIfEEvPT_S1_i"));
    CUdeviceptr p0;
    MUST(cuMemAlloc(&p0, 4096));
    int n = 1;
    double dd = 0;

    /* a faulting window leaves the program's handler in place */
    struct drv_pair s = { (void *)(uintptr_t)big1, NULL };
    void *margs[] = { &p0, &n, &s, &dd };
    OK(cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, margs, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    MUST(cuDevicePrimaryCtxReset(d0));
    MUST(cuDevicePrimaryCtxRetain(&c0, d0));
    MUST(cuCtxSetCurrent(c0));
    TRUE(fault_outside_twin());
    MUST(cuModuleLoadData(&m, cubin));      /* the reset unloaded the context's modules */
    MUST(cuModuleGetFunction(&mixed, m, "_Z5mixedPfi8drv_paird"));
    MUST(cuMemAlloc(&p0, 4096));

    /* a twin's fault that is no device access goes to the program */
    own_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TRUE(own_page != MAP_FAILED);
    s.a = own_page;
    int faults = prog_faults;
    OK(cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, margs, NULL));
    OK(cuCtxSynchronize());
    EQ(repaired, 1);
    EQ(prog_faults, faults + 1);
    EQ(*(int *)own_page, 1);

    /* a reserved range with nothing mapped: a device fault, not a crash */
    CUdeviceptr va;
    MUST(cuMemAddressReserve(&va, 2 << 20, 0, 0, 0));
    s.a = (void *)(uintptr_t)(va + 64);
    OK(cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, margs, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    TRUE(fault_outside_twin());
    MUST(cuDevicePrimaryCtxReset(d0));
    MUST(cuDevicePrimaryCtxRetain(&c0, d0));
    MUST(cuCtxSetCurrent(c0));
    OK(cuMemAddressFree(va, 2 << 20));
    MUST(cuModuleLoadData(&m, cubin));      /* the reset unloaded the context's modules */
    MUST(cuModuleGetFunction(&touch, m, "_Z5touchPii"));
    MUST(cuModuleGetFunction(&fill, m, "_ZN3drv4fillIfEEvPT_S1_i"));
    MUST(cuMemAlloc(&p0, 4096));

    /* another thread's copy out of protected memory waits for the window */
    pthread_t th;
    MUST(pthread_create(&th, NULL, copier, NULL) == 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN);
    touch_hook = wait_for_copier;
    int v = 5;
    void *targs[] = { &p0, &v };
    OK(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, NULL, targs, NULL));
    touch_hook = NULL;
    pthread_join(th, NULL);
    OK(cuCtxSynchronize());
    TRUE(copy_ok);
    int got = 0;
    OK(cuMemcpyDtoH(&got, p0, 4));
    EQ(got, 5);

    /* a twin in an object loaded RTLD_LOCAL, loaded after the first launch */
    float x = 2.5f, out = 0;
    int one = 1;
    void *fargs[] = { &p0, &x, &one };
    OK(cuMemsetD32(p0, 0, 1));
    OK(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, fargs, NULL));
    OK(cuMemcpyDtoH(&out, p0, 4));
    TRUE(out == 0.0f);              /* no twin yet: nothing ran */
    void *lib = dlopen(KDIR "/libdrv_guard_twin.so", RTLD_NOW | RTLD_LOCAL);
    TRUE(lib != NULL);
    TRUE(dlsym(RTLD_DEFAULT, "simcuda_twin_fill") == NULL);
    OK(cuLaunchKernel(fill, 1, 1, 1, 1, 1, 1, 0, NULL, fargs, NULL));
    OK(cuMemcpyDtoH(&out, p0, 4));
    TRUE(out == 2.5f);

    TRUE(fault_outside_twin());

    /* the program installs its handler again: it handles its own faults,
     * and the next window still makes a twin's illegal access a device fault */
    install_prog_handler();
    TRUE(fault_outside_twin());
    MUST(cuModuleGetFunction(&mixed, m, "_Z5mixedPfi8drv_paird"));
    s.a = (void *)(uintptr_t)big1;
    OK(cuLaunchKernel(mixed, 1, 1, 1, 1, 1, 1, 0, NULL, margs, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    TRUE(fault_outside_twin());
    return drv_done("drv_guard");
}
