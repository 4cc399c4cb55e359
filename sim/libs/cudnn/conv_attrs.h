/* The attributes of cuDNN's three convolution operations (cudnn_graph.h's
 * names), one row per operation in enum simdnn_dir's order (forward,
 * backward data, backward filter) and one column per role: x, w, y as the
 * operation names them (backward data: x is dx, y is dy; backward filter: w
 * is dw), the convolution descriptor, alpha, beta.  graph.c reads an
 * operation by them, cnn.c's legacy convolutions set them. */
#ifndef SIM_LIBS_CUDNN_CONV_ATTRS_H
#define SIM_LIBS_CUDNN_CONV_ATTRS_H

#include <cudnn_graph.h>

enum { SIMDNN_CA_X, SIMDNN_CA_W, SIMDNN_CA_Y, SIMDNN_CA_CONV, SIMDNN_CA_ALPHA, SIMDNN_CA_BETA, SIMDNN_CA_N };

static const cudnnBackendAttributeName_t simdnn_conv_attrs[3][SIMDNN_CA_N] = {
    { CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA },
    { CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA },
    { CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA },
};

/* The row of operation type t; -1 for a type that is no convolution. */
static inline int simdnn_conv_row(cudnnBackendDescriptorType_t t)
{
    return t == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR         ? 0
           : t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR   ? 1
           : t == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR ? 2
                                                                                 : -1;
}
#endif
