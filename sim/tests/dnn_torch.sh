#!/bin/sh
# dnn_torch: PyTorch's convolutions on two simulated GPUs under
# `devcheck --sim 2` give the CPU's numbers (tests/clients/torch_conv.py:
# conv2d with stride, padding, groups and dilation, a patch embedding,
# conv1d, conv3d, conv_transpose2d, channels_last, half, bfloat16, and the
# gradients of input and weight; tolerances in the program), through the
# sim's cuDNN: its graph API (cudnn-frontend, PyTorch's default) and its
# legacy API (TORCH_CUDNN_V8_API_DISABLED=1).  Correct programs: devcheck
# reports nothing.
. "$ROOT/tests/lib.sh"
need_pyenv
for api in graph legacy; do
    t=$TMPD/$api
    if [ $api = legacy ]; then v7=1; else v7=; fi
    env ${v7:+TORCH_CUDNN_V8_API_DISABLED=1} DEVCHECK_OPTIONS="json_path=$t.json" \
        "$DEVCHECK_BIN" --sim 2 -- "$PY" "$ROOT/tests/clients/torch_conv.py" >"$t.out" 2>"$t.err"
    rc=$?
    [ $rc -eq 0 ] || { sed 's/^/    > /' "$t.out" "$t.err" >&2; fail "torch_conv ($api): exit status $rc"; }
    want=11
    [ $api = legacy ] && want=10
    expect_eq "torch_conv ($api): cases" $want "$(grep -c '^case .*: max error .* ok$' "$t.out")"
    expect_grep '^torch_conv: OK cudnn=92600 device=cuda:1$' "$t.out"
    expect_grep '^devcheck: SUMMARY: 0 findings ' "$t.err"
    expect_no_grep 'is not implemented' "$t.err"
done
echo "dnn_torch: ok"
