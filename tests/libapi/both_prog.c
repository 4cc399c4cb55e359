/* Both versions of cuBLAS and cuFFT in one process (tests/libapi/libapi.sh):
 * `both_prog buggy|correct` on two simulated GPUs loads CUDA 13's
 * libcublas.so.13 / libcufft.so.12 and CUDA 12's libcublas.so.12 /
 * libcufft.so.11 with dlopen(RTLD_LOCAL) and finds each function with
 * dlsym(handle), as JAX/XLA do.  Each call must reach its own library: the
 * cuBLAS stand-ins reject each other's handles, and each cuFFT stand-in
 * numbers its plans from 1 (plan 2 exists in libcufft.so.12 only).
 *  - a CUDA 12 handle made on cuda:1, a CUDA 13 one on cuda:0: each
 *    cublasSgemm_v2 on its handle's device's data; buggy: the CUDA 12 one's
 *    B on cuda:0 (the one finding: argument B, cuda:1, owner cuda:0);
 *  - CUDA 13's cuFFT (libcufft.so.12): plans 1 and 2 made on cuda:1; CUDA
 *    12's (libcufft.so.11): plan 1 made on cuda:0; each executed on its own
 *    device's data (the two plans numbered 1 are different plans). */
#include <cublas_api.h>
#include <cufft.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

static void *open_lib(const char *soname)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", soname, dlerror());
        exit(2);
    }
    return h;
}

static void *fn(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(2);
    }
    return p;
}

/* The functions of one version of each library. */
struct blas {
    __typeof__(&cublasCreate_v2) create;
    __typeof__(&cublasSgemm_v2) sgemm;
    __typeof__(&cublasDestroy_v2) destroy;
};
struct fft {
    __typeof__(&cufftPlan1d) plan1d;
    __typeof__(&cufftExecC2C) exec;
    __typeof__(&cufftDestroy) destroy;
};

static struct blas blas_of(const char *soname)
{
    void *h = open_lib(soname);
    return (struct blas){ (__typeof__(&cublasCreate_v2))fn(h, "cublasCreate_v2"),
                          (__typeof__(&cublasSgemm_v2))fn(h, "cublasSgemm_v2"),
                          (__typeof__(&cublasDestroy_v2))fn(h, "cublasDestroy_v2") };
}

static struct fft fft_of(const char *soname)
{
    void *h = open_lib(soname);
    return (struct fft){ (__typeof__(&cufftPlan1d))fn(h, "cufftPlan1d"), (__typeof__(&cufftExecC2C))fn(h, "cufftExecC2C"),
                         (__typeof__(&cufftDestroy))fn(h, "cufftDestroy") };
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy");
    struct blas b13 = blas_of("libcublas.so.13"), b12 = blas_of("libcublas.so.12");
    struct fft f13 = fft_of("libcufft.so.12"), f12 = fft_of("libcufft.so.11");
    float alpha = 1.0f, beta = 0.0f;
    float *A1, *B1, *C1, *A0, *B0, *C0;
    cufftComplex *in1, *out1, *in0, *out0;
    cublasHandle_t h12, h13;
    cufftHandle p13a, p13b, p12;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&A1, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&B1, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&C1, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&in1, 256 * sizeof(cufftComplex)));
    CK(cudaMalloc((void **)&out1, 256 * sizeof(cufftComplex)));
    CK(b12.create(&h12));
    CK(f13.plan1d(&p13a, 256, CUFFT_C2C, 1));
    CK(f13.plan1d(&p13b, 256, CUFFT_C2C, 1));
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&A0, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&B0, 64 * sizeof(float)));      // @alloc-B0
    CK(cudaMalloc((void **)&C0, 64 * sizeof(float)));
    CK(cudaMalloc((void **)&in0, 256 * sizeof(cufftComplex)));
    CK(cudaMalloc((void **)&out0, 256 * sizeof(cufftComplex)));
    CK(b13.create(&h13));
    CK(f12.plan1d(&p12, 256, CUFFT_C2C, 1));
    CK(b13.sgemm(h13, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A0, 8, B0, 8, &beta, C0, 8));
    CK(b12.sgemm(h12, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, A1, 8, buggy ? B0 : B1, 8, &beta, C1, 8));
    CK(f12.exec(p12, in0, out0, CUFFT_FORWARD));
    CK(f13.exec(p13a, in1, out1, CUFFT_FORWARD));
    CK(f13.exec(p13b, in1, out1, CUFFT_FORWARD));
    CK(b12.destroy(h12));
    CK(b13.destroy(h13));
    CK(f12.destroy(p12));
    CK(f13.destroy(p13a));
    CK(f13.destroy(p13b));
    CK(cudaDeviceSynchronize());
    printf("both_prog %s: done (plans %d %d %d)\n", mode, p13a, p13b, p12);
    return 0;
}
