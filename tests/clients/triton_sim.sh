#!/bin/sh
# Triton on 4 simulated GPUs, without devcheck: the correct program prints the
# right numbers on every device (the kernel's host twin lives in a shared
# object loaded with ctypes, RTLD_LOCAL); the missing-device-guard shape (x on
# cuda:1, kernel on cuda:0) raises torch's illegal-memory-access error at the
# next synchronizing call.
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" triton_add.py >"$TMPD/ok.out" 2>"$TMPD/ok.err"
expect_eq "triton_add: status" 0 "$?"
expect_grep '^triton_add: OK devices=4 result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' "$TMPD/ok.out"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" triton_add.py --bug >"$TMPD/bug.out" 2>"$TMPD/bug.err"
expect_eq "triton_add --bug: status" 3 "$?"
expect_grep '^triton_add: fault: CUDA error: an illegal memory access was encountered$' "$TMPD/bug.out"
