/* A stand-in for NVIDIA's libcudnn_adv.so.9 (tests/libapi/README): the RNN
 * calls, doing no math.  Programs do not link it: libcudnn.so.9 exports the
 * same names and forwards to these (standin_cudnn.c), as cuDNN 9 does. */
#include <cudnn_adv.h>

cudnnStatus_t CUDNNWINAPI cudnnRNNForward(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                          cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
                                          cudnnRNNDataDescriptor_t xDesc, const void *x,
                                          cudnnRNNDataDescriptor_t yDesc, void *y, cudnnTensorDescriptor_t hDesc,
                                          const void *hx, void *hy, cudnnTensorDescriptor_t cDesc, const void *cx,
                                          void *cy, size_t weightSpaceSize, const void *weightSpace,
                                          size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                          void *reserveSpace)
{
    return handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnRNNBackwardData_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                  const int32_t devSeqLengths[], cudnnRNNDataDescriptor_t yDesc,
                                                  const void *y, const void *dy, cudnnRNNDataDescriptor_t xDesc,
                                                  void *dx, cudnnTensorDescriptor_t hDesc, const void *hx,
                                                  const void *dhy, void *dhx, cudnnTensorDescriptor_t cDesc,
                                                  const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize,
                                                  const void *weightSpace, size_t workSpaceSize, void *workSpace,
                                                  size_t reserveSpaceSize, void *reserveSpace)
{
    return handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t CUDNNWINAPI cudnnRNNBackwardWeights_v8(cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc,
                                                     cudnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                                                     cudnnRNNDataDescriptor_t xDesc, const void *x,
                                                     cudnnTensorDescriptor_t hDesc, const void *hx,
                                                     cudnnRNNDataDescriptor_t yDesc, const void *y,
                                                     size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
                                                     void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
{
    return handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}
