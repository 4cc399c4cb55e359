#!/bin/sh
# Issue 36: PyTorch's convolutions say a device mismatch in a type's words
# (`Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
# should be the same`).  conv_device.py catches it (as pytest, a server or a
# notebook would); devcheck explains it as a framework_device_error: the
# call's line, the input's allocation line, the CPU weight and bias made at
# the module's line, the fix moving the module (once), the note on the
# exception.
. "$ROOT/tests/lib.sh"
need_pyenv
CL=$ROOT/tests/clients
C=$CL/conv_device.py
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
cd "$CL"
"$BUILD/bin/devcheck" --sim 2 --json "$TMPD/conv.json" -- "$PY" "$C" >"$TMPD/conv.out" 2>"$TMPD/conv.err"
expect_eq "conv_device: status" 0 "$?"
expect_grep '^conv: caught RuntimeError: Input type \(torch\.cuda\.FloatTensor\) and weight type \(torch\.FloatTensor\) should be the same' \
    "$TMPD/conv.out"
expect_grep "^conv: note: devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/conv.out"
W=$(at "$C" '# WEIGHT')
expect_eq "conv_device: findings" "framework_device_error at=$(at "$C" '# CALL$') tensors=x@cuda:0@$(at "$C" '# INPUT$'),conv.weight@cpu@made:$W,conv.bias@cpu@made:$W nvtx=- hint=conv.to(x.device)" \
    "$(python3 "$CL/pyfindings.py" "$TMPD/conv.json" | grep -v '^summary')"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD/conv.json" ||
    fail "JSON records do not match report/finding.schema.json"
