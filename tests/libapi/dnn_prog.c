/* cuDNN at its API (tests/libapi/libapi.sh): `dnn_prog MODE` on two
 * simulated GPUs, a handle on cuda:0 with a stream of cuda:0:
 *  - cudnnBackendExecute with a variant pack of four tensors (uids 1-4) and
 *    a workspace on cuda:0; uid 4 is a by-value scalar on the host stack
 *    (CUDNN_ATTR_TENSOR_IS_BY_VALUE, as SDPA's scale: legal); uid 2 on
 *    cuda:1 when buggy (the one finding);
 *  - cudnnConvolutionForward with alpha/beta on the host (always legal),
 *    x, y and the workspace on cuda:0, w on cuda:1 when conv (the one
 *    finding), a host workspace pointer of size 0 (not read: legal);
 *  - the RNN calls (bound in libcudnn.so.9, a shim forwarding to
 *    libcudnn_adv.so.9) with every buffer on cuda:0: cudnnRNNForward in
 *    inference (cx, cy NULL: not an LSTM; no reserve space: NULL), hx on
 *    cuda:1 when rnn (the one finding); cudnnRNNBackwardData_v8 (dhy, dcy,
 *    cx NULL); cudnnRNNBackwardWeights_v8, dweightSpace on cuda:1 when rnnw
 *    (the one finding). */
#include <cudnn_graph.h>
#include <cudnn_cnn.h>
#include <cudnn_adv.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnBackendCreateDescriptor) \
    X(cudnnBackendSetAttribute) X(cudnnBackendFinalize) X(cudnnBackendExecute) X(cudnnBackendDestroyDescriptor) \
    X(cudnnConvolutionForward) X(cudnnRNNForward) X(cudnnRNNBackwardData_v8) X(cudnnRNNBackwardWeights_v8)
FNS(DECL_FN)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy"), conv = !strcmp(mode, "conv");
    int rnn = !strcmp(mode, "rnn"), rnnw = !strcmp(mode, "rnnw");
    BIND("libcudnn.so.9");
    float *t[4], *t2_1, *w1, *hx1, *dw1;
    void *ws;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&t2_1, 1024));                          // @alloc-t2
    CK(cudaMalloc((void **)&w1, 1024));                            // @alloc-w
    CK(cudaMalloc((void **)&hx1, 1024));                           // @alloc-hx
    CK(cudaMalloc((void **)&dw1, 1024));                           // @alloc-dw
    CK(cudaSetDevice(0));
    for (int i = 0; i < 3; i++)
        CK(cudaMalloc((void **)&t[i], 1024));
    CK(cudaMalloc(&ws, 4096));
    float scale = 0.125f;
    t[3] = &scale;
    if (buggy)
        t[1] = t2_1;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudnnHandle_t h;
    CK(F(cudnnCreate)(&h));
    CK(F(cudnnSetStream)(h, s));
    cudnnBackendDescriptor_t plan, vp;
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    int64_t uids[4] = { 1, 2, 3, 4 };
    void *ptrs[4] = { t[0], t[1], t[2], t[3] };
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 4, uids));
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 4, ptrs));
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    CK(F(cudnnBackendFinalize)(vp));
    CK(F(cudnnBackendExecute)(h, plan, vp));
    float alpha = 1.0f, beta = 0.0f;
    char host_ws[8];
    CK(F(cudnnConvolutionForward)(h, &alpha, NULL, t[0], NULL, conv ? w1 : t[2], NULL,
                                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, host_ws, 0, &beta, NULL, t[0]));
    int32_t *seq;
    float *y;
    CK(cudaMalloc((void **)&seq, 4 * sizeof(int32_t)));
    CK(cudaMalloc((void **)&y, 1024));
    CK(F(cudnnRNNForward)(h, NULL, CUDNN_FWD_MODE_INFERENCE, seq, NULL, t[0], NULL, y, NULL, rnn ? hx1 : t[2],
                          t[2], NULL, NULL, NULL, 1024, t[2], 4096, ws, 0, NULL));
    CK(F(cudnnRNNBackwardData_v8)(h, NULL, seq, NULL, y, y, NULL, t[0], NULL, t[2], NULL, t[2], NULL, NULL,
                                  NULL, NULL, 1024, t[2], 4096, ws, 1024, t[0]));
    CK(F(cudnnRNNBackwardWeights_v8)(h, NULL, CUDNN_WGRAD_MODE_ADD, seq, NULL, t[0], NULL, t[2], NULL, y, 1024,
                                     rnnw ? dw1 : t[2], 4096, ws, 1024, t[0]));
    CK(F(cudnnBackendDestroyDescriptor)(vp));
    CK(F(cudnnBackendDestroyDescriptor)(plan));
    CK(F(cudnnDestroy)(h));
    printf("dnn_prog %s: done\n", mode);
    return 0;
}
