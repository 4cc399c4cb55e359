/* cuDNN at its API (tests/libapi/libapi.sh): `dnn_prog MODE` on two
 * simulated GPUs, against the sim's cuDNN (sim/libs/cudnn/), which computes
 * convolutions and behaves as NVIDIA's cuDNN 9.26 on its descriptors.  A
 * handle on cuda:0 with a stream of cuda:0; x, w, y on cuda:0 (a 4x4 image,
 * a 3x3 filter, float):
 *  - cudnnBackendExecute of a graph built as PyTorch's cudnn-frontend
 *    builds one (tensors with unique ids x 1, w 2, y 3, a convolution, its
 *    forward operation, the operation graph, heuristics, the first engine
 *    configuration, a plan with the handle, a variant pack with the data
 *    pointers and a workspace on cuda:0); w (uid 2) on cuda:1 when buggy
 *    (the one finding);
 *  - cudnnConvolutionForward with legacy descriptors, alpha/beta on the host
 *    (always legal), a host workspace pointer of size 0 (not read: legal);
 *    w on cuda:1 when conv (the one finding);
 *  - the RNN calls (bound in libcudnn.so.9, a shim forwarding to
 *    libcudnn_adv.so.9) with every buffer on cuda:0: cudnnRNNForward in
 *    inference (cx, cy NULL: not an LSTM; no reserve space: NULL), hx on
 *    cuda:1 when rnn (the one finding); cudnnRNNBackwardData_v8 (dhy, dcy,
 *    cx NULL); cudnnRNNBackwardWeights_v8, dweightSpace on cuda:1 when rnnw
 *    (the one finding).  Their descriptors are NULL, which cuDNN refuses
 *    (the sim runs no RNN: each answers CUDNN_STATUS_NOT_SUPPORTED): the
 *    program prints what they return; devcheck checks the pointers before
 *    the library answers.
 *  - issue 37 item 5, each right in correct, w (cuda:1) in one argument in
 *    its mode (the one finding): `bn` cudnnBatchNormalizationForwardTrainingEx
 *    bnScale (its zData on cuda:1 always: CUDNN_BATCHNORM_OPS_BN does not
 *    read it), `bnbwd` cudnnBatchNormalizationBackwardEx dBnScaleData,
 *    `bninf` cudnnBatchNormalizationForwardInference estimatedMean, `find`
 *    cudnnFindConvolutionForwardAlgorithmEx w, `cba`
 *    cudnnConvolutionBiasActivationForward bias, `ctc` cudnnCTCLoss_v8
 *    labels (device memory in _v8); `pool` cudnnPoolingForward x, `stf`
 *    cudnnSpatialTfSamplerForward grid (correct: the grid generator both
 *    ways and the sampler's backward too); `tf` both at once (two findings).
 * The stream is synchronised after each convolution: the library's kernel
 * reading cuda:1's w faults there (buggy, conv: exit 3, as on a GPU). */
#include <cudnn_graph.h>
#include <cudnn_cnn.h>
#include <cudnn_ops.h>
#include <cudnn_adv.h>
#include <cuda_runtime_api.h>
#include <string.h>
#include "bind.h"

#define FNS(X) X(cudnnCreate) X(cudnnDestroy) X(cudnnSetStream) X(cudnnBackendCreateDescriptor) \
    X(cudnnBackendSetAttribute) X(cudnnBackendGetAttribute) X(cudnnBackendFinalize) X(cudnnBackendExecute) \
    X(cudnnBackendDestroyDescriptor) X(cudnnCreateTensorDescriptor) X(cudnnSetTensor4dDescriptor) \
    X(cudnnDestroyTensorDescriptor) X(cudnnCreateFilterDescriptor) X(cudnnSetFilter4dDescriptor) \
    X(cudnnDestroyFilterDescriptor) X(cudnnCreateConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor) \
    X(cudnnDestroyConvolutionDescriptor) X(cudnnConvolutionForward) X(cudnnRNNForward) \
    X(cudnnRNNBackwardData_v8) X(cudnnRNNBackwardWeights_v8) X(cudnnBatchNormalizationForwardTrainingEx) \
    X(cudnnBatchNormalizationBackwardEx) X(cudnnBatchNormalizationForwardInference) \
    X(cudnnFindConvolutionForwardAlgorithmEx) X(cudnnConvolutionBiasActivationForward) X(cudnnCTCLoss_v8) \
    X(cudnnPoolingForward) X(cudnnSpatialTfGridGeneratorForward) X(cudnnSpatialTfGridGeneratorBackward) \
    X(cudnnSpatialTfSamplerForward) X(cudnnSpatialTfSamplerBackward)
FNS(DECL_FN)

typedef cudnnBackendDescriptor_t bd;

static void set1(bd d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, const void *v)
{
    CK(F(cudnnBackendSetAttribute)(d, a, t, 1, v));
}

static bd tensor(int64_t uid, const int64_t dim[4])
{
    int64_t str[4] = { dim[1] * dim[2] * dim[3], dim[2] * dim[3], dim[3], 1 }, align = 16;
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    bd d;
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &d));
    set1(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &dt);
    CK(F(cudnnBackendSetAttribute)(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim));
    CK(F(cudnnBackendSetAttribute)(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, str));
    set1(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid);
    set1(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &align);
    CK(F(cudnnBackendFinalize)(d));
    return d;
}

static const int64_t XD[4] = { 1, 1, 4, 4 }, WD[4] = { 1, 1, 3, 3 }, YD[4] = { 1, 1, 2, 2 };

/* The graph of one forward convolution, executed with x, w, y and ws. */
static void graph(cudnnHandle_t h, void *x, void *w, void *y, void *ws)
{
    bd tx = tensor(1, XD), tw = tensor(2, WD), ty = tensor(3, YD), conv, op, g, heur, cfg, plan, vp;
    int64_t nsp = 2, zero[2] = { 0, 0 }, one[2] = { 1, 1 }, count = 0, got = 0;
    cudnnDataType_t comp = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    double alpha = 1, beta = 0;
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
    set1(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &nsp);
    set1(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &comp);
    set1(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode);
    CK(F(cudnnBackendSetAttribute)(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, zero));
    CK(F(cudnnBackendSetAttribute)(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, zero));
    CK(F(cudnnBackendSetAttribute)(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one));
    CK(F(cudnnBackendSetAttribute)(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one));
    CK(F(cudnnBackendFinalize)(conv));
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op));
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, &tx);
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, &tw);
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, &ty);
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, &conv);
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, &alpha);
    set1(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, &beta);
    CK(F(cudnnBackendFinalize)(op));
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &g));
    set1(g, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &h);
    set1(g, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &op);
    CK(F(cudnnBackendFinalize)(g));
    cudnnBackendHeurMode_t hm = CUDNN_HEUR_MODE_INSTANT;
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur));
    set1(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, &g);
    set1(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &hm);
    CK(F(cudnnBackendFinalize)(heur));
    CK(F(cudnnBackendGetAttribute)(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                   NULL));
    CK(count < 1);
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfg));
    CK(F(cudnnBackendGetAttribute)(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got,
                                   &cfg));
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    set1(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &h);
    set1(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &cfg);
    CK(F(cudnnBackendFinalize)(plan));
    int64_t uids[3] = { 1, 2, 3 };
    void *ptrs[3] = { x, w, y };
    CK(F(cudnnBackendCreateDescriptor)(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CK(F(cudnnBackendSetAttribute)(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    CK(F(cudnnBackendFinalize)(vp));
    CK(F(cudnnBackendExecute)(h, plan, vp));
    bd all[] = { vp, plan, cfg, heur, g, op, conv, ty, tw, tx };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        CK(F(cudnnBackendDestroyDescriptor)(all[i]));
}

/* The same convolution through the legacy API. */
static void legacy(cudnnHandle_t h, void *x, void *w, void *y)
{
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    CK(F(cudnnCreateTensorDescriptor)(&xd));
    CK(F(cudnnCreateTensorDescriptor)(&yd));
    CK(F(cudnnCreateFilterDescriptor)(&wd));
    CK(F(cudnnCreateConvolutionDescriptor)(&cd));
    CK(F(cudnnSetTensor4dDescriptor)(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 4, 4));
    CK(F(cudnnSetTensor4dDescriptor)(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 2, 2));
    CK(F(cudnnSetFilter4dDescriptor)(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3));
    CK(F(cudnnSetConvolution2dDescriptor)(cd, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    float alpha = 1.0f, beta = 0.0f;
    char host_ws[8];
    CK(F(cudnnConvolutionForward)(h, &alpha, xd, x, wd, w, cd, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, host_ws, 0,
                                  &beta, yd, y));
    CK(F(cudnnDestroyConvolutionDescriptor)(cd));
    CK(F(cudnnDestroyFilterDescriptor)(wd));
    CK(F(cudnnDestroyTensorDescriptor)(yd));
    CK(F(cudnnDestroyTensorDescriptor)(xd));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "correct";
    int buggy = !strcmp(mode, "buggy"), conv = !strcmp(mode, "conv");
    int rnn = !strcmp(mode, "rnn"), rnnw = !strcmp(mode, "rnnw");
    BIND("libcudnn.so.9");
    float *t[3], *t2_1, *w1, *hx1, *dw1;
    void *ws;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&t2_1, 1024));                          // @alloc-t2
    CK(cudaMalloc((void **)&w1, 1024));                            // @alloc-w
    CK(cudaMalloc((void **)&hx1, 1024));                           // @alloc-hx
    CK(cudaMalloc((void **)&dw1, 1024));                           // @alloc-dw
    CK(cudaSetDevice(0));
    for (int i = 0; i < 3; i++) {
        CK(cudaMalloc((void **)&t[i], 1024));
        CK(cudaMemset(t[i], 0, 1024));
    }
    CK(cudaMalloc(&ws, 4096));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudnnHandle_t h;
    CK(F(cudnnCreate)(&h));
    CK(F(cudnnSetStream)(h, s));
    graph(h, t[0], buggy ? t2_1 : t[1], t[2], ws);
    CK(cudaStreamSynchronize(s));
    legacy(h, t[0], conv ? w1 : t[1], t[2]);
    CK(cudaStreamSynchronize(s));
    int32_t *seq;
    float *y;
    CK(cudaMalloc((void **)&seq, 4 * sizeof(int32_t)));
    CK(cudaMalloc((void **)&y, 1024));
    int f = F(cudnnRNNForward)(h, NULL, CUDNN_FWD_MODE_INFERENCE, seq, NULL, t[0], NULL, y, NULL, rnn ? hx1 : t[2],
                               t[2], NULL, NULL, NULL, 1024, t[2], 4096, ws, 0, NULL);
    int d = F(cudnnRNNBackwardData_v8)(h, NULL, seq, NULL, y, y, NULL, t[0], NULL, t[2], NULL, t[2], NULL, NULL,
                                       NULL, NULL, 1024, t[2], 4096, ws, 1024, t[0]);
    int w = F(cudnnRNNBackwardWeights_v8)(h, NULL, CUDNN_WGRAD_MODE_ADD, seq, NULL, t[0], NULL, t[2], NULL, y, 1024,
                                          rnnw ? dw1 : t[2], 4096, ws, 1024, t[0]);
    printf("dnn_prog %s: RNN calls returned %d %d %d\n", mode, f, d, w);
    if (!strcmp(mode, "correct"))       /* devSeqLengths NULL: allowed since cuDNN 8.9.1 (OpenCV passes it) */
        printf("cudnnRNNForward, devSeqLengths NULL: %d\n",
               (int)F(cudnnRNNForward)(h, NULL, CUDNN_FWD_MODE_INFERENCE, NULL, NULL, t[0], NULL, y, NULL, t[2], t[2],
                                       NULL, NULL, NULL, 1024, t[2], 4096, ws, 0, NULL));
    /* issue 37 item 5: batch normalization, cudnn.benchmark's search, the
     * fused convolution, CTC loss; NULL descriptors as above (statuses
     * printed); one operand on cuda:1 in its mode */
    int correct = !strcmp(mode, "correct");
    float alpha = 1, beta = 0;
#define ON(m) (correct || !strcmp(mode, m))
#define W1(m) (!strcmp(mode, m) ? (void *)w1 : (void *)t[1])
    if (ON("bn"))       /* CUDNN_BATCHNORM_OPS_BN: zData not read, so cuda:1's is legal */
        printf("cudnnBatchNormalizationForwardTrainingEx: %d\n", (int)F(cudnnBatchNormalizationForwardTrainingEx)(h,
               CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, &alpha, &beta, NULL, t[0], NULL, w1, NULL, t[2], NULL,
               W1("bn"), t[1], 0.1, t[1], t[1], 1e-5, t[2], t[2], NULL, ws, 4096, NULL, 0));
    if (ON("bnbwd"))
        printf("cudnnBatchNormalizationBackwardEx: %d\n", (int)F(cudnnBatchNormalizationBackwardEx)(h,
               CUDNN_BATCHNORM_SPATIAL, CUDNN_BATCHNORM_OPS_BN, &alpha, &beta, &alpha, &beta, NULL, t[0], NULL, NULL,
               NULL, t[1], NULL, NULL, NULL, t[2], NULL, t[1], t[1], W1("bnbwd"), t[2], 1e-5, t[0], t[0], NULL, ws,
               4096, NULL, 0));
    if (ON("bninf"))
        printf("cudnnBatchNormalizationForwardInference: %d\n", (int)F(cudnnBatchNormalizationForwardInference)(h,
               CUDNN_BATCHNORM_SPATIAL, &alpha, &beta, NULL, t[0], NULL, t[2], NULL, t[1], t[1], W1("bninf"), t[1],
               1e-5));
    if (ON("find")) {
        int got = 0;
        cudnnConvolutionFwdAlgoPerf_t perf[1];
        printf("cudnnFindConvolutionForwardAlgorithmEx: %d\n", (int)F(cudnnFindConvolutionForwardAlgorithmEx)(h,
               NULL, t[0], NULL, W1("find"), NULL, NULL, t[2], 1, &got, perf, ws, 4096));
    }
    if (ON("cba"))
        printf("cudnnConvolutionBiasActivationForward: %d\n", (int)F(cudnnConvolutionBiasActivationForward)(h,
               &alpha, NULL, t[0], NULL, t[1], NULL, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, ws, 4096, &beta, NULL,
               t[2], NULL, W1("cba"), NULL, NULL, t[2]));
    if (ON("ctc"))      /* _v8: labels and lengths in device memory */
        printf("cudnnCTCLoss_v8: %d\n", (int)F(cudnnCTCLoss_v8)(h, CUDNN_CTC_LOSS_ALGO_DETERMINISTIC, NULL, NULL,
               t[0], (const int *)W1("ctc"), (const int *)t[1], (const int *)t[1], t[2], NULL, NULL, 4096, ws));
    /* pooling, the spatial transformer (cudnn_ops.h): every tensor device memory */
    int tf = !strcmp(mode, "tf");       /* pool and stf at once */
    if (ON("pool") || tf)
        printf("cudnnPoolingForward: %d\n", (int)F(cudnnPoolingForward)(h, NULL, &alpha, NULL, tf ? (void *)w1 : W1("pool"), &beta, NULL,
               t[2]));
    if (correct) {
        printf("cudnnSpatialTfGridGeneratorForward: %d\n", (int)F(cudnnSpatialTfGridGeneratorForward)(h, NULL, t[1],
               t[2]));
        printf("cudnnSpatialTfGridGeneratorBackward: %d\n", (int)F(cudnnSpatialTfGridGeneratorBackward)(h, NULL,
               t[2], t[1]));
        printf("cudnnSpatialTfSamplerBackward: %d\n", (int)F(cudnnSpatialTfSamplerBackward)(h, NULL, &alpha, NULL,
               t[0], &beta, NULL, t[2], &alpha, NULL, t[2], t[1], &beta, t[1]));
    }
    if (ON("stf") || tf)
        printf("cudnnSpatialTfSamplerForward: %d\n", (int)F(cudnnSpatialTfSamplerForward)(h, NULL, &alpha, NULL, t[0],
               tf ? (void *)w1 : W1("stf"), &beta, NULL, t[2]));
    CK(F(cudnnDestroy)(h));
    printf("dnn_prog %s: done\n", mode);
    return 0;
}
