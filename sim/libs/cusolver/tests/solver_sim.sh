#!/bin/sh
# The sim's cuSOLVER (sim/libs/cusolver/) on 2 simulated GPUs: solver_sim.c
# checks every routine's results on the host by what defines them (L L^H =
# A, P A = L U and A x = b, Q R = A with LAPACK's R, A V = V diag(w),
# U S V^H = A, ...) in S, D, C and Z, on cuda:1 (the handle and stream of
# the second device); `fault`: A of cuda:0 faults cuda:1 as on a GPU (the
# sim names the kernel and the parameter with SIMCUDA_VERBOSE=1).
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER
T=$BUILD/tests/sim/cusolver
for mode in all fault; do
    t=$TMPD/$mode
    on_sim env SIMCUDA_DEVICES=2 SIMCUDA_VERBOSE=1 "$T/solver_sim" $mode >"$t.out" 2>"$t.err"
    rc=$?
    [ $rc = 0 ] || { cat "$t.out" "$t.err" >&2; fail "solver_sim $mode: status $rc"; }
done
expect_grep '^solver_sim all: done$' "$TMPD/all.out"
expect_no_grep '^simcuda' "$TMPD/all.err"
expect_grep '^fault: cuda:1 after cusolverDnSpotrf of cuda:0.s A: cudaErrorIllegalAddress$' "$TMPD/fault.out"
expect_grep '^simcuda: cusolverSimPotrf on device 1: pointer parameter 0 = 0x[0-9a-f]+ \(device 0 memory' \
    "$TMPD/fault.err"
echo "solver_sim: ok"
