#!/bin/sh
# devcheck's library hooks on PyTorch's own calls into the sim's cuBLASLt and
# cuDNN (torch_libcalls.py), under `devcheck --sim 2`:
#  - ok: nn.Linear (a cublasLtMatmul with the BIAS epilogue) and nn.Conv2d
#    on cuda:1 give the CPU's numbers, with cuDNN's graph API (PyTorch's
#    default) and its legacy API (TORCH_CUDNN_V8_API_DISABLED=1): 0 findings;
#  - linear: nn.Linear on cuda:0 whose weight and bias are cuda:1's memory
#    (a DLPack capsule naming the wrong device): exactly two device_mismatch
#    errors at the cublasLtMatmul call, argument A (the weight) and
#    CUBLASLT_MATMUL_DESC_BIAS_POINTER (the bias), cuda:0 and owner cuda:1,
#    at the .py line of the call; the library's kernels then fault (exit 3);
#  - conv, legacy API: one device_mismatch at cudnnConvolutionForward,
#    argument w, the same devices and line; the kernel faults (exit 3).
#  - conv, graph API: one device_mismatch at cudnnBackendExecute, the
#    variant pack's data pointer of uid 119 -- PyTorch's uid for the weight,
#    'w' (aten/src/ATen/native/cudnn/Conv_v8.cpp: getTensorDescriptor(w, 'w',
#    ...)) -- recorded when PyTorch set the pack (a finalized pack gives its
#    pointers back to no one); the same devices and line; the kernel faults.
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/clients/hf_lib.sh"
P=$CL/torch_libcalls.py
for api in graph legacy; do
    v7=0
    [ $api = legacy ] && v7=1
    TORCH_CUDNN_V8_API_DISABLED=$v7 run ok_$api 2 torch_libcalls.py ok
    clean ok_$api "torch_libcalls.py ok ($api)"
    expect_grep '^torch_libcalls ok: OK linear=1 conv=1$' "$TMPD/ok_$api.out"
done
# wrong NAME API: the run faults as a GPU does
wrong() {
    v7=0
    [ "$2" = legacy ] && v7=1
    TORCH_CUDNN_V8_API_DISABLED=$v7 run $1_$2 2 torch_libcalls.py $1
    expect_eq "torch_libcalls.py $1 ($2): status" 3 "$rc"
    expect_grep "^torch_libcalls $1: returned cuda:0\$" "$TMPD/$1_$2.out"
    expect_grep "^torch_libcalls $1: fault: CUDA error: an illegal memory access was encountered\$" "$TMPD/$1_$2.out"
}
wrong linear graph
L=$(at "$P" 'return lin(x)')
expect_eq "nn.Linear's cublasLtMatmul" "device_mismatch error call=cublasLtMatmul operand=A launch=0 owner=1 at=$L
device_mismatch error call=cublasLtMatmul operand=CUBLASLT_MATMUL_DESC_BIAS_POINTER launch=0 owner=1 at=$L
summary errors=2 launches=$(launches linear_graph)" "$(facts "$TMPD/linear_graph.json")"

wrong conv legacy
expect_eq "nn.Conv2d's cudnnConvolutionForward" \
    "device_mismatch error call=cudnnConvolutionForward operand=w launch=0 owner=1 at=$(at "$P" 'return conv(img)')
summary errors=1 launches=$(launches conv_legacy)" "$(facts "$TMPD/conv_legacy.json")"

wrong conv graph
expect_eq "nn.Conv2d's cudnnBackendExecute" \
    "device_mismatch error call=cudnnBackendExecute operand=CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=119] launch=0 owner=1 at=$(at "$P" 'return conv(img)')
summary errors=1 launches=$(launches conv_graph)" "$(facts "$TMPD/conv_graph.json")"
echo "torch_libcalls: ok"
