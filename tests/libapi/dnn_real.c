/* cuDNN's v9 backend with NVIDIA's own library (tests/libapi/dnn_real.sh):
 * `dnn_real LIBCUDNN MODE` loads the real libcudnn.so.9 (the path to the
 * nvidia-cudnn wheel's, as JAX does: dlopen(RTLD_LOCAL) + dlsym) and builds
 * a convolution's graph on the CPU -- three tensors (X uid 1, W uid 2, Y
 * uid 3), the convolution, its operation, the operation graph, a variant
 * pack -- each finalized by the real library (cuDNN 9.26 does so without a
 * GPU; only the execution plan needs one), then calls cudnnBackendExecute
 * with cuda:0 current and no handle (cudnnCreate needs a GPU): the real
 * call returns CUDNN_STATUS_BAD_PARAM, devcheck checks the pack before it.
 * It also asks the finalized pack back (cudnnBackendGetAttribute on
 * UNIQUE_IDS) and prints the status: 3000, CUDNN_STATUS_NOT_SUPPORTED.
 *  - correct: X, W, Y on cuda:0 (no finding);
 *  - buggy: W on cuda:1 (one finding: cudnnBackendExecute, uid=2);
 *  - host: X in pageable host memory (one finding: uid 1 is a tensor that
 *    is not by value, so host memory is not legal for it);
 *  - unseen: the pack's attributes set through libcudnn_graph.so.9's own
 *    cudnnBackendSetAttribute (not libcudnn.so.9's, which devcheck hooks),
 *    W on cuda:1: a pack devcheck never saw set, not checked (said once).
 * Exit status: 0 when every cuDNN call but the execute succeeded. */
#include <cudnn_graph.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ck.h"

#define FN(h, n) __typeof__(&n) p_##n = (__typeof__(&n))sym(h, #n)

static void *sym(void *h, const char *n)
{
    void *p = dlsym(h, n);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", n, dlerror());
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dnn_real LIBCUDNN correct|buggy|host|unseen\n");
        return 2;
    }
    const char *mode = argv[2];
    int buggy = !strcmp(mode, "buggy"), host = !strcmp(mode, "host"), unseen = !strcmp(mode, "unseen");
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
        return 2;
    }
    FN(h, cudnnBackendCreateDescriptor);
    FN(h, cudnnBackendSetAttribute);
    FN(h, cudnnBackendGetAttribute);
    FN(h, cudnnBackendFinalize);
    FN(h, cudnnBackendExecute);
    FN(h, cudnnBackendDestroyDescriptor);
    __typeof__(&cudnnBackendSetAttribute) set_pack = p_cudnnBackendSetAttribute;
    if (unseen) {
        /* libcudnn.so.9 loaded it; its own definition, which devcheck does not hook */
        char path[4096];
        snprintf(path, sizeof path, "%s", argv[1]);
        char *slash = strrchr(path, '/');
        snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
                 "libcudnn_graph.so.9");
        void *g = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!g) {
            fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
            return 2;
        }
        set_pack = (__typeof__(&cudnnBackendSetAttribute))sym(g, "cudnnBackendSetAttribute");
    }

    float *w1, *buf[3], *ws;
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&w1, 4 * 4 * 3 * 3 * sizeof(float)));   // @alloc-w1
    CK(cudaSetDevice(0));
    for (int i = 0; i < 3; i++)
        CK(cudaMalloc((void **)&buf[i], 4096));
    CK(cudaMalloc((void **)&ws, 4096));
    float *x_host = malloc(4096);
    if (buggy || unseen)
        buf[1] = w1;
    if (host)
        buf[0] = x_host;

    /* X, W, Y: NCHW float, 1x4x8x8 and a 4x4x3x3 filter */
    cudnnBackendDescriptor_t t[3];
    int64_t xd[4] = { 1, 4, 8, 8 }, xs[4] = { 256, 64, 8, 1 }, wd[4] = { 4, 4, 3, 3 }, wst[4] = { 36, 9, 3, 1 };
    cudnnDataType_t dt = CUDNN_DATA_FLOAT;
    int64_t align = 16;
    for (int i = 0; i < 3; i++) {
        int64_t uid = i + 1;
        CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &t[i]));
        CK(p_cudnnBackendSetAttribute(t[i], CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
        CK(p_cudnnBackendSetAttribute(t[i], CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, i == 1 ? wd : xd));
        CK(p_cudnnBackendSetAttribute(t[i], CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, i == 1 ? wst : xs));
        CK(p_cudnnBackendSetAttribute(t[i], CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
        CK(p_cudnnBackendSetAttribute(t[i], CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align));
        CK(p_cudnnBackendFinalize(t[i]));
    }
    cudnnBackendDescriptor_t conv, op, graph, vp, plan;
    int64_t dims = 2, pad[2] = { 1, 1 }, one[2] = { 1, 1 };
    cudnnConvolutionMode_t cm = CUDNN_CROSS_CORRELATION;
    CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, &conv));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &cm));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, one));
    CK(p_cudnnBackendSetAttribute(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, one));
    CK(p_cudnnBackendFinalize(conv));
    float alpha = 1.0f, beta = 0.0f;
    CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                  &t[0]));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                  &t[1]));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                  &t[2]));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                                  CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
    CK(p_cudnnBackendSetAttribute(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
    CK(p_cudnnBackendFinalize(op));
    CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &graph));
    CK(p_cudnnBackendSetAttribute(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op));
    CK(p_cudnnBackendFinalize(graph));

    int64_t uids[3] = { 1, 2, 3 };
    void *ptrs[3] = { buf[0], buf[1], buf[2] };
    CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp));
    CK(set_pack(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CK(set_pack(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CK(set_pack(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws));
    CK(p_cudnnBackendFinalize(vp));
    int64_t n = 0, back[3];
    printf("dnn_real: cudnnBackendGetAttribute(UNIQUE_IDS) after finalize = %d\n",
           (int)p_cudnnBackendGetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, &n, back));
    CK(p_cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan));
    cudnnStatus_t e = p_cudnnBackendExecute(NULL, plan, vp);
    printf("dnn_real %s: cudnnBackendExecute = %d\n", mode, (int)e);
    CK(p_cudnnBackendDestroyDescriptor(plan));
    CK(p_cudnnBackendDestroyDescriptor(vp));
    CK(p_cudnnBackendDestroyDescriptor(graph));
    CK(p_cudnnBackendDestroyDescriptor(op));
    CK(p_cudnnBackendDestroyDescriptor(conv));
    for (int i = 0; i < 3; i++)
        CK(p_cudnnBackendDestroyDescriptor(t[i]));
    free(x_host);
    return 0;
}
