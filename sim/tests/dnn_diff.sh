#!/bin/sh
# dnn_diff: the sim's cuDNN answers the descriptor API as NVIDIA's does.
# sim/tests/dnn_diff.c drives one sequence of calls that need no GPU (about
# 300: versions, error strings; backend tensors, convolutions, the three
# convolution operations, operation graph, heuristics, engine, knob choice,
# variant packs; the legacy tensor, filter and convolution descriptors),
# valid and invalid, through NVIDIA's libcudnn.so.9 (the nvidia-cudnn-cu13
# wheel of the client virtualenv, cached outside the clone like torch, run
# on the CPU) and through the sim's, and compares the transcripts: every
# status, count and value the same, among them a finalized variant pack's
# UNIQUE_IDS / DATA_POINTERS getters answering 3000 (NOT_SUPPORTED).
. "$ROOT/tests/lib.sh"
need_pyenv
real=$(ls "$PYENV"/lib/python*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -n 1)
[ -n "$real" ] || fail "no nvidia-cudnn wheel in $PYENV"
exe=$BUILD/tests/sim/dnn_diff
[ -x "$exe" ] || fail "missing $exe (run make first)"
# NVIDIA's finds its sub-libraries beside it ($ORIGIN), the sim's beside it
env -u LD_LIBRARY_PATH "$exe" "$real" >"$TMPD/real.out" 2>"$TMPD/real.err" ||
    { cat "$TMPD/real.err" >&2; fail "dnn_diff on NVIDIA's cuDNN failed"; }
on_sim "$exe" "$SIM_DIR/libcudnn.so.9" >"$TMPD/sim.out" 2>"$TMPD/sim.err" ||
    { cat "$TMPD/sim.err" >&2; fail "dnn_diff on the sim's cuDNN failed"; }
expect_grep '^version 92600$' "$TMPD/real.out"
n=$(sed -n 's/^dnn_diff: \([0-9]*\) lines$/\1/p' "$TMPD/real.out")
[ "${n:-0}" -ge 290 ] || fail "NVIDIA's transcript is short ($n lines)"
diff -u "$TMPD/real.out" "$TMPD/sim.out" >"$TMPD/diff" || { cat "$TMPD/diff" >&2; fail "the sim answers otherwise (above)"; }
# the variant pack's refusal is in the compared transcript
expect_grep '^ *[0-9]+ get 1000 type 3 req 3: 3000 count -7$' "$TMPD/sim.out"
expect_grep '^ *[0-9]+ get 1001 type 6 req 3: 3000 count -7$' "$TMPD/sim.out"
expect_grep '^ *[0-9]+ get 1003 type 6 req 1: 0 count 1 0x4000$' "$TMPD/sim.out"
echo "dnn_diff: ok ($n lines the same)"
