#!/bin/sh
# fft_torch: PyTorch's FFTs on two simulated GPUs under `devcheck --sim 2`
# give the CPU's numbers (tests/clients/torch_fft.py values: fft of
# complex64/complex128 along the last axis and along axis 0, ifft, rfft of
# float32/float64/float16, irfft, fft2, rfft2, fftn; tolerances in the
# program), through the sim's cuFFT (cufftXtMakePlanMany, cufftXtExec on
# PyTorch's work area and stream), with no finding and no simcuda line; and
# a cufftExecC2C of a cuda:0 plan on an input tensor of cuda:1 (torch_fft.py
# wrong) is one device_mismatch at that call (argument idata, cuda:0, owner
# cuda:1, at the .py line of the call), then fails as on a GPU:
# torch.cuda.synchronize raises the illegal memory access (exit 3, with
# devcheck and without).
. "$ROOT/tests/lib.sh"
need_pyenv
P=$ROOT/tests/clients/torch_fft.py
"$DEVCHECK_BIN" --sim 2 --json "$TMPD/values.json" -- "$PY" "$P" values >"$TMPD/values.out" 2>"$TMPD/values.err"
rc=$?
[ $rc = 0 ] || { sed 's/^/    > /' "$TMPD/values.err" "$TMPD/values.out" >&2; fail "torch_fft values under devcheck --sim 2: exit $rc"; }
# 11 comparisons on each of the 2 devices
expect_grep '^torch_fft values: ok 22$' "$TMPD/values.out"
expect_grep '^devcheck: SUMMARY: 0 findings' "$TMPD/values.err"
expect_no_grep '^simcuda|==devcheck==|Warning' "$TMPD/values.err"

on_sim_rt env SIMCUDA_DEVICES=2 "$PY" "$P" wrong >"$TMPD/plain.out" 2>"$TMPD/plain.err"
expect_eq "torch_fft wrong without devcheck: status" 3 $?
"$DEVCHECK_BIN" --sim 2 --json "$TMPD/wrong.json" -- "$PY" "$P" wrong >"$TMPD/wrong.out" 2>"$TMPD/wrong.err"
expect_eq "torch_fft wrong under devcheck: status" 3 $?
for f in plain wrong; do
    expect_grep '^torch_fft wrong: cufftExecC2C returned 0$' "$TMPD/$f.out"
    expect_grep '^torch_fft wrong: synchronize raised: .*illegal memory access' "$TMPD/$f.out"
done
line=$(grep -n 'status = lib.cufftExecC2C(' "$P" | cut -d: -f1)
expect_eq "torch_fft wrong: findings" "device_mismatch cufftExecC2C idata launch=0 owner=1 at=$line" \
    "$("$PY" "$ROOT/tests/clients/libcall_findings.py" "$TMPD/wrong.json" "$P")"
echo "fft_torch: ok"
