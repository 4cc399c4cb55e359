#!/bin/sh
# torch.linalg on the sim's cuSOLVER (torch_linalg.py): cholesky, eigh, svd,
# lu_factor, cholesky_solve and qr's Q on two simulated GPUs give the CPU's
# numbers (LU's pivots identical); under devcheck the run prints the same
# and devcheck finds nothing.
. "$ROOT/tests/lib.sh"
need_pyenv
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER
PROG=$ROOT/sim/libs/cusolver/tests/torch_linalg.py
t=$TMPD/la
on_sim_rt env SIMCUDA_DEVICES=2 "$PY" "$PROG" >"$t.plain.out" 2>"$t.plain.err"
echo $? >"$t.plain.rc"
expect_eq "torch_linalg.py: status" 0 "$(cat "$t.plain.rc")"
expect_grep '^torch_linalg: ok$' "$t.plain.out"
expect_no_grep '^simcuda' "$t.plain.err"
under_devcheck_rt env SIMCUDA_DEVICES=2 "$PY" "$PROG" >"$t.out" 2>"$t.err"
echo $? >"$t.rc"
expect_same_run "torch_linalg.py under devcheck" "$t.plain" "$t"
expect_grep '^devcheck: SUMMARY: 0 findings' "$t.err"
echo "torch_linalg: ok"
