/* cuFFT at its API (tests/libapi/libapi.sh): `fft_prog MODE` on two
 * simulated GPUs, against the sim's cuFFT (sim/libs/cufft/), which computes.
 * A C2C plan made on cuda:0 (its stream on cuda:0, auto-allocation off, its
 * work area of the size cufftMakePlan1d gives set by the program), an R2C
 * plan on cuda:0 and a C2C plan made on cuda:1:
 *  - buggy: cufftExecC2C of the cuda:0 plan on idata of cuda:1 (the one
 *    finding: a plan made on cuda:0 executed on cuda:1 data);
 *  - work: the cuda:0 plan's work area on cuda:1 (the one finding: argument
 *    workArea of cufftSetWorkArea, where it is handed over);
 *  - correct: each plan on its own device's data, the cuda:1 plan executed
 *    while cuda:0 is current (the plan's device counts, not the current one).
 * Each also runs cufftExecR2C (the R2C plan) and cufftXtExec (the C2C
 * plan) on cuda:0's data, then synchronises the stream: the library's
 * kernel reading cuda:1's memory faults there (buggy, work: exit 3, as on a
 * GPU).
 * xtdesc (issue 37 item 5): cufftXtExecDescriptor with a one-part host
 * descriptor naming cuda:0 (the descriptor is built by hand, as
 * cufftXtMalloc fills it): its input part on cuda:1 (the one finding:
 * argument input->descriptor->data[i], on cuda:0); in correct, on cuda:0.
 * The sim's cuFFT may answer CUFFT_NOT_SUPPORTED: the status is printed. */
#include <cufft.h>
#include <cufftXt.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cufftPlan1d) X(cufftCreate) X(cufftMakePlan1d) X(cufftSetStream) X(cufftSetAutoAllocation) \
    X(cufftSetWorkArea) X(cufftExecC2C) X(cufftExecR2C) X(cufftXtExec) X(cufftDestroy) \
    X(cufftXtExecDescriptor)
FNS(DECL_FN)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy"), work = !strcmp(mode, "work");
    BIND(SONAME("libcufft.so.12"));
    cufftComplex *in0, *out0, *in1, *out1;
    void *work0, *work1;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&in1, 256 * sizeof(cufftComplex)));      // @alloc-in1
    CK(cudaMalloc((void **)&out1, 256 * sizeof(cufftComplex)));
    CK(cudaMemset(in1, 0, 256 * sizeof(cufftComplex)));
    cufftHandle p1;
    CK(F(cufftPlan1d)(&p1, 256, CUFFT_C2C, 1));
    CK(cudaSetDevice(0));
    CK(cudaMalloc((void **)&in0, 256 * sizeof(cufftComplex)));
    CK(cudaMalloc((void **)&out0, 256 * sizeof(cufftComplex)));
    CK(cudaMemset(in0, 0, 256 * sizeof(cufftComplex)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cufftHandle p0, pr;
    size_t ws;
    CK(F(cufftCreate)(&p0));
    CK(F(cufftSetAutoAllocation)(p0, 0));
    CK(F(cufftMakePlan1d)(p0, 256, CUFFT_C2C, 1, &ws));
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&work1, ws));                                     // @alloc-work1
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&work0, ws));
    CK(F(cufftSetStream)(p0, s));
    CK(F(cufftSetWorkArea)(p0, work ? work1 : work0));
    CK(F(cufftExecC2C)(p0, buggy ? in1 : in0, out0, CUFFT_FORWARD));
    CK(F(cufftPlan1d)(&pr, 256, CUFFT_R2C, 1));
    CK(F(cufftSetStream)(pr, s));
    CK(F(cufftExecR2C)(pr, (cufftReal *)in0, out0));
    CK(F(cufftXtExec)(p0, in0, out0, CUFFT_FORWARD));
    CK(F(cufftExecC2C)(p1, in1, out1, CUFFT_INVERSE));
    CK(cudaStreamSynchronize(s));
    if (!strcmp(mode, "xtdesc") || !strcmp(mode, "correct")) {
        static cudaXtDesc xin, xout;
        cudaLibXtDesc din = { .version = 1, .descriptor = &xin, .library = LIB_FORMAT_CUFFT };
        cudaLibXtDesc dout = { .version = 1, .descriptor = &xout, .library = LIB_FORMAT_CUFFT };
        xin.nGPUs = xout.nGPUs = 1;
        xin.GPUs[0] = xout.GPUs[0] = 0;
        xin.data[0] = strcmp(mode, "xtdesc") ? (void *)in0 : (void *)in1;
        xout.data[0] = out0;
        xin.size[0] = xout.size[0] = 256 * sizeof(cufftComplex);
        printf("cufftXtExecDescriptor: %d\n", (int)F(cufftXtExecDescriptor)(p0, &din, &dout, CUFFT_FORWARD));
    }
    CK(F(cufftDestroy)(p0));
    CK(F(cufftDestroy)(pr));
    CK(F(cufftDestroy)(p1));
    printf("fft_prog %s: done\n", mode);
    return 0;
}
