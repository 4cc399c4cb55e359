#!/bin/sh
# lt_descriptors: the sim's cuBLASLt keeps descriptors as NVIDIA's does.
# lt_probe (sim/tests/lt_probe.c) prints what each library answers to the
# same descriptor, layout and preference calls, run on the CPU: every
# attribute's size and default, Gets and Sets of the wrong size, NULL
# buffers, unknown attributes, the bias pointer after the epilogue went back
# to DEFAULT (kept), unchecked values, layouts not checked at creation,
# status names and sentences.  The outputs of $CUDA_HOME's libcublasLt.so.13
# (the toolkit's, 13.1 here) and build/sim's are the same.
. "$ROOT/tests/lib.sh"
P=$BUILD/tests/sim/lt_probe
real=$CUDA_HOME/lib64/libcublasLt.so.13
[ -f "$real" ] || { note "no $real: nothing to compare against"; echo "lt_descriptors: skipped"; exit 0; }
"$P" "$real" >"$TMPD/real" 2>"$TMPD/real.err" || { cat "$TMPD/real.err" >&2; fail "lt_probe on NVIDIA's library failed"; }
on_sim "$P" "$SIM_DIR/libcublasLt.so.13" >"$TMPD/sim" 2>"$TMPD/sim.err" ||
    { cat "$TMPD/sim.err" >&2; fail "lt_probe on the sim's library failed"; }
expect_grep '^bias after DEFAULT -> 0 =3412000000000000$' "$TMPD/real"
[ "$(wc -l < "$TMPD/real")" -gt 200 ] || fail "lt_probe printed too little"
diff -u "$TMPD/real" "$TMPD/sim" >"$TMPD/diff" || { cat "$TMPD/diff" >&2; fail "the sim's cuBLASLt answers otherwise (above)"; }
echo "lt_descriptors: ok ($(wc -l < "$TMPD/real") answers the same)"
