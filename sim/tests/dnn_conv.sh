#!/bin/sh
# dnn_conv: the sim's cuDNN computes convolutions (sim/libs/cudnn/README.md)
# on two simulated GPUs, driven by sim/tests/dnn_conv.c:
#  - values: fourteen convolutions through the backend graph API (built as
#    cudnn-frontend builds them: heuristics, engine configuration, plan,
#    variant pack) and the legacy API, forward / backward data / backward
#    filter, NCHW and NHWC, padding, stride, dilation, groups, CONVOLUTION
#    mode, alpha/beta, float, double, half, bfloat16, 1d-as-2d and 3d, each
#    equal to a double reference within its type's tolerance;
#  - wrongdev: x on cuda:1 for a cuda:0 handle (no peer access): execute
#    returns success, the stream's synchronisation CUDA_ERROR_ILLEGAL_ADDRESS,
#    the sim naming the kernel's twin and the device 1 memory it touched;
#  - stream: cudnnSetStream with a stream of cuda:1 on a cuda:0 handle is
#    CUDNN_STATUS_MAPPING_ERROR (4006; the documented mismatch of stream and
#    handle context).
. "$ROOT/tests/lib.sh"
exe=$BUILD/tests/sim/dnn_conv
[ -x "$exe" ] || fail "missing $exe (run make first)"
on_sim env SIMCUDA_DEVICES=2 "$exe" values >"$TMPD/values.out" 2>"$TMPD/values.err" ||
    { cat "$TMPD/values.out" "$TMPD/values.err" >&2; fail "dnn_conv values failed"; }
expect_eq "cases computed" 14 "$(grep -c '^case .*: status 0 max error .* ok$' "$TMPD/values.out")"
expect_grep '^dnn_conv values: 0 failed$' "$TMPD/values.out"
on_sim env SIMCUDA_DEVICES=2 SIMCUDA_VERBOSE=1 "$exe" wrongdev >"$TMPD/wd.out" 2>"$TMPD/wd.err" ||
    { cat "$TMPD/wd.err" >&2; fail "dnn_conv wrongdev failed"; }
expect_grep '^fwd_nchw_f32: cudnn status 0, stream synchronize: cudaErrorIllegalAddress$' "$TMPD/wd.out"
expect_grep '^wrongdev: execute status 0, no result$' "$TMPD/wd.out"
expect_grep '^simcuda: simdnn_conv on device 0: .*device 1 memory.*CUDA_ERROR_ILLEGAL_ADDRESS' "$TMPD/wd.err"
on_sim env SIMCUDA_DEVICES=2 "$exe" stream >"$TMPD/st.out" 2>&1 || { cat "$TMPD/st.out" >&2; fail "dnn_conv stream"; }
expect_grep '^stream: cudnnSetStream\(cuda:1 stream\) = 4006, cudnnSetStream\(NULL\) = 0$' "$TMPD/st.out"
echo "dnn_conv: ok"
