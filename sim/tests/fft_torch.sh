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

. "$ROOT/tests/clients/libcall_wrong.sh"
expect_libcall_wrong torch_fft "$P" cufftExecC2C idata
echo "fft_torch: ok"
