/* stubs_call: the stubs gen_stubs.py generates for both libraries return the
 * documented error, return neutral values where the result is no error code,
 * and print `simcuda: <name> is not implemented` exactly once per function,
 * even when threads race on the first call.  Functions the library defines
 * itself (stubs_impl.c) are not stubbed. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(cond, ...) do {                                               \
        if (!(cond)) {                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* Entry points without a C prototype in the toolkit's C headers (nvcc's
 * registration hooks are declared in crt/host_runtime.h, C++ only; the VDPAU
 * interop header needs vdpau headers): declared here as the real ones are. */
extern char __cudaInitModule(void **fatCubinHandle);
extern cudaError_t cudaVDPAUGetDevice(int *device, uint32_t vdpDevice, void *vdpGetProcAddress);

static pthread_barrier_t start;

static void *racer(void *arg)
{
    CUdeviceptr p;
    pthread_barrier_wait(&start);
    for (int i = 0; i < 100; i++)
        if (cuMemAlloc(&p, 16) != CUDA_ERROR_NOT_SUPPORTED) *(int *)arg = 1;  /* _v2 */
    return NULL;
}

static int count(const char *text, const char *line)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += strlen(line)) n++;
    return n;
}

int main(void)
{
    /* capture stderr in a file */
    char path[] = "/tmp/stubs_call.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 2; }
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);

    int bad = 0, n = 0;
    enum { T = 8 };
    pthread_t th[T];
    pthread_barrier_init(&start, NULL, T);
    for (int i = 0; i < T; i++) pthread_create(&th[i], NULL, racer, &bad);
    for (int i = 0; i < T; i++) pthread_join(th[i], NULL);

    void *dp = (void *)1;
    cudaError_t e1 = cudaMalloc(&dp, 16), e2 = cudaMalloc(&dp, 16);
    CUresult init = cuInit(0);
    cudaError_t count_rc = cudaGetDeviceCount(&n);
    CUresult sync = cuCtxSynchronize();
    const char *name = cudaGetErrorName(cudaErrorInvalidValue);
    struct cudaChannelFormatDesc d = { 1, 2, 3, 4, cudaChannelFormatKindFloat };
    d = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    void *handle = NULL;
    char init_module = __cudaInitModule(&handle);
    int dev = -1;
    cudaError_t vdpau = cudaVDPAUGetDevice(&dev, 1, NULL);

    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char out[4096] = "";
    ssize_t len = pread(fd, out, sizeof out - 1, 0);
    out[len > 0 ? len : 0] = '\0';
    close(fd);

    CHECK(!bad, "cuMemAlloc stub did not return CUDA_ERROR_NOT_SUPPORTED");
    CHECK(e1 == cudaErrorNotSupported && e2 == cudaErrorNotSupported,
          "cudaMalloc stub returned %d, %d", e1, e2);
    CHECK(init == CUDA_SUCCESS, "cuInit was stubbed although defined");
    CHECK(count_rc == cudaSuccess && n == 4, "cudaGetDeviceCount was stubbed although defined");
    CHECK(sync == CUDA_ERROR_NOT_SUPPORTED, "cuCtxSynchronize stub returned %d", sync);
    CHECK(name && strstr(name, "cudaGetErrorName"), "cudaGetErrorName stub returned %s",
          name ? name : "NULL");
    CHECK(d.x == 0 && d.y == 0 && d.z == 0 && d.w == 0 && d.f == 0,
          "cudaCreateChannelDesc stub returned a non-zero descriptor");
    CHECK(count(out, "simcuda: cuMemAlloc_v2 is not implemented\n") == 1,
          "cuMemAlloc_v2 line printed %d times",
          count(out, "simcuda: cuMemAlloc_v2 is not implemented\n"));
    CHECK(count(out, "simcuda: cudaMalloc is not implemented\n") == 1, "cudaMalloc line count");
    CHECK(count(out, "simcuda: cuCtxSynchronize is not implemented\n") == 1, "cuCtxSynchronize line");
    CHECK(count(out, "simcuda: cudaGetErrorName is not implemented\n") == 1, "cudaGetErrorName line");
    CHECK(count(out, "simcuda: cudaCreateChannelDesc is not implemented\n") == 1,
          "cudaCreateChannelDesc line");
    CHECK(init_module == 0, "__cudaInitModule stub returned %d", init_module);
    CHECK(vdpau == cudaErrorNotSupported && dev == -1, "cudaVDPAUGetDevice stub returned %d", vdpau);
    CHECK(count(out, "simcuda: __cudaInitModule is not implemented\n") == 1, "__cudaInitModule line");
    CHECK(count(out, "simcuda: cudaVDPAUGetDevice is not implemented\n") == 1, "cudaVDPAUGetDevice line");
    CHECK(count(out, "simcuda: ") == 7, "%d lines printed, want 7:\n%s", count(out, "simcuda: "), out);
    CHECK(strstr(out, "cuInit") == NULL && strstr(out, "cudaGetDeviceCount") == NULL,
          "an implemented function printed a line");
    if (failures) {
        fprintf(stderr, "%d check(s) failed; stderr was:\n%s", failures, out);
        return 1;
    }
    printf("stubs_call: all checks passed\n");
    return 0;
}
