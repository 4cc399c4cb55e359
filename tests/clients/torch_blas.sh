#!/bin/sh
# PyTorch's matmul, nn.Linear, addmm, bmm, F.linear with a bias and a GELU
# addmm on 2 simulated GPUs under `devcheck --sim 2` give the CPU's numbers
# (torch_blas.py values; the sim's cuBLAS and cuBLASLt compute), with no
# finding and no simcuda line; and a cublasSgemm_v2 on torch's handle of
# cuda:0 with B on cuda:1 (torch_blas.py wrong) is one device_mismatch at
# that call (argument B, cuda:0, owner cuda:1, at the .py line of the call),
# then fails as on a GPU: torch.cuda.synchronize raises the illegal memory
# access (exit 3, with devcheck and without).
. "$ROOT/tests/lib.sh"
need_pyenv
P=$ROOT/tests/clients/torch_blas.py
"$DEVCHECK_BIN" --sim 2 --json "$TMPD/values.json" -- "$PY" "$P" values >"$TMPD/values.out" 2>"$TMPD/values.err"
rc=$?
[ $rc = 0 ] || { sed 's/^/    > /' "$TMPD/values.err" "$TMPD/values.out" >&2; fail "torch_blas values under devcheck --sim 2: exit $rc"; }
expect_grep '^torch_blas values: ok [0-9]+$' "$TMPD/values.out"
expect_grep '^devcheck: SUMMARY: 0 findings' "$TMPD/values.err"
expect_no_grep '^simcuda|==devcheck==' "$TMPD/values.err"
# 14 comparisons on each of the 2 devices
n=$(sed -n 's/^torch_blas values: ok //p' "$TMPD/values.out")
expect_eq "torch_blas values: comparisons" 28 "$n"

. "$ROOT/tests/clients/libcall_wrong.sh"
expect_libcall_wrong torch_blas "$P" cublasSgemm_v2 B
echo "torch_blas: ok"
