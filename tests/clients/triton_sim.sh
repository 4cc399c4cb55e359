#!/bin/sh
# Triton on 4 simulated GPUs, without devcheck: the correct program prints the
# right numbers on every device (the kernel's host twin lives in a shared
# object loaded with ctypes, RTLD_LOCAL); the missing-device-guard shape (x on
# cuda:1, cuda:0 current) is refused by Triton's launcher before any launch,
# as on a GPU (the driver gives no device pointer of another device's memory
# without peer access: sim/driver/README.md, "Pointer queries"); after PyTorch
# enabled peer access cuda:0 -> cuda:1 the same call runs and computes.
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" triton_add.py >"$TMPD/ok.out" 2>"$TMPD/ok.err"
expect_eq "triton_add: status" 0 "$?"
expect_grep '^triton_add: OK devices=4 result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' "$TMPD/ok.out"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" triton_add.py --bug >"$TMPD/bug.out" 2>"$TMPD/bug.err"
expect_eq "triton_add --bug: status" 3 "$?"
expect_grep '^triton_add: refused: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/bug.out"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" triton_add.py --bug --peer >"$TMPD/peer.out" 2>"$TMPD/peer.err"
expect_eq "triton_add --bug --peer: status" 0 "$?"
expect_grep '^triton_add: result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' "$TMPD/peer.out"
