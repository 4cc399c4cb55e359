#!/bin/sh
# A C++/CUDA extension (torch.utils.cpp_extension, built once into
# TORCH_EXTENSIONS_DIR outside the clone) on 4 simulated GPUs, without
# devcheck: its kernel's host twin, exported by the extension that Python
# loads RTLD_LOCAL, computes the right numbers on every device; launched on
# cuda:0 with a tensor on cuda:1 (no device guard) it raises torch's
# illegal-memory-access error at the next synchronizing call.
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" ext_add.py >"$TMPD/ok.out" 2>"$TMPD/ok.err"
rc=$?
[ $rc -eq 0 ] || { tail -n 30 "$TMPD/ok.err" >&2; fail "ext_add: exit status $rc"; }
expect_grep '^ext_add: OK devices=4 result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' "$TMPD/ok.out"
on_sim_rt env SIMCUDA_DEVICES=4 "$PY" ext_add.py --bug >"$TMPD/bug.out" 2>"$TMPD/bug.err"
expect_eq "ext_add --bug: status" 3 "$?"
expect_grep '^ext_add: fault: CUDA error: an illegal memory access was encountered$' "$TMPD/bug.out"
