#!/bin/sh
# Issue 36: PyTorch's convolutions say a device mismatch in a type's words
# (`Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)
# should be the same`).  conv_device.py catches it (as pytest, a server or a
# notebook would); devcheck explains it as a framework_device_error: the
# call's line, the input's allocation line, the CPU weight and bias made at
# the module's line, the fix moving the module (once), the note on the
# exception.  The same for nn.Conv1d and nn.ConvTranspose3d, and for the
# RNNs' messages (`Input and parameter tensors are not at the same device`:
# an LSTM left on the CPU; `Input and hidden tensors ...`: its state on the
# CPU, the fix moving the state).
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

for m in conv1d convT3d; do
    "$BUILD/bin/devcheck" --sim 2 --json "$TMPD/$m.json" -- "$PY" "$C" $m >"$TMPD/$m.out" 2>"$TMPD/$m.err"
    expect_eq "$m: status" 0 "$?"
    expect_grep '^conv: caught RuntimeError: Input type \(torch\.cuda\.FloatTensor\) and weight type \(torch\.FloatTensor\) should be the same' \
        "$TMPD/$m.out"
    expect_grep "^conv: note: devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/$m.out"
done
W=$(at "$C" 'nn.Conv1d(3, 4'); I=$(at "$C" 'torch.ones(1, 3, 8, device')
expect_eq "conv1d: findings" "framework_device_error at=$(at "$C" '# CALL1D$') tensors=x@cuda:0@$I,conv.weight@cpu@made:$W,conv.bias@cpu@made:$W nvtx=- hint=conv.to(x.device)" \
    "$(python3 "$CL/pyfindings.py" "$TMPD/conv1d.json" | grep -v '^summary')"
W=$(at "$C" 'nn.ConvTranspose3d(3, 4'); I=$(at "$C" 'torch.ones(1, 3, 4, 4, 4, device')
expect_eq "convT3d: findings" "framework_device_error at=$(at "$C" '# CALLT3D$') tensors=x@cuda:0@$I,conv.weight@cpu@made:$W,conv.bias@cpu@made:$W nvtx=- hint=conv.to(x.device)" \
    "$(python3 "$CL/pyfindings.py" "$TMPD/convT3d.json" | grep -v '^summary')"

"$BUILD/bin/devcheck" --sim 2 --json "$TMPD/lstm.json" -- "$PY" "$C" lstm >"$TMPD/lstm.out" 2>"$TMPD/lstm.err"
expect_eq "lstm: status" 0 "$?"
expect_grep '^conv: caught RuntimeError: Input and parameter tensors are not at the same device, found input tensor at cuda:0 and parameter tensor at cpu$' \
    "$TMPD/lstm.out"
expect_grep "^conv: note: devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/lstm.out"
# the LSTM's weights, made on the CPU at the module's line; the fix moves the module
F=$(python3 "$CL/pyfindings.py" "$TMPD/lstm.json" | grep -v '^summary')
W=$(at "$C" 'nn.LSTM(8, 4)  ')
expect_eq "lstm: kind, call, fix" "framework_device_error at=$(at "$C" '# RNNCALL$') hint=rnn.to(x.device)" \
    "$(echo "$F" | sed 's/ tensors=[^ ]*//; s/ nvtx=-//')"
echo "$F" | grep -q "rnn.weight_ih_l0@cpu@made:$W," || fail "lstm: the CPU weight and where it was made: $F"
echo "$F" | grep -q "tensors=x@cuda:0@$(at "$C" 'torch.ones(2, 1, 8, device')," || fail "lstm: the input first: $F"

"$BUILD/bin/devcheck" --sim 2 --json "$TMPD/lstm_hidden.json" -- "$PY" "$C" lstm_hidden >"$TMPD/lstm_hidden.out" 2>"$TMPD/lstm_hidden.err"
expect_eq "lstm_hidden: status" 0 "$?"
expect_grep '^conv: caught RuntimeError: Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor at cpu$' \
    "$TMPD/lstm_hidden.out"
expect_grep "^conv: note: devcheck: framework_device_error: the op's tensors are on different devices\$" "$TMPD/lstm_hidden.out"
F=$(python3 "$CL/pyfindings.py" "$TMPD/lstm_hidden.json" | grep -v '^summary')
echo "$F" | grep -q ",h0@cpu@made:$(at "$C" '# HIDDEN'),c0@cpu@made:$(at "$C" 'c0 = torch.zeros')," ||
    fail "lstm_hidden: the CPU state and where it was made: $F"
expect_eq "lstm_hidden: fix" "hint=h0 = h0.to(rnn.weight_ih_l0.device); c0 = c0.to(rnn.weight_ih_l0.device)" "$(echo "$F" | sed 's/.* hint=/hint=/')"
expect_eq "lstm_hidden: call" "at=$(at "$C" '# RNNCALL2$')" "$(echo "$F" | sed 's/^[^ ]* //; s/ .*//')"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"
