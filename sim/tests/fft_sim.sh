#!/bin/sh
# fft_sim: the sim's cuFFT computes transforms and faults as a GPU does
# (sim/libs/cufft/README.md), on two simulated GPUs, driven by
# sim/tests/fft_sim.c:
#  - values: seventeen transforms (C2C/Z2Z, R2C/D2Z, C2R/Z2D; 1d, 2d, 3d;
#    odd and prime sizes, batches, in place, strides and distances, the Xt
#    calls in half and with PyTorch's embeds, a caller's work area and
#    stream) each equal to the direct multi-dimensional DFT within its
#    type's tolerance;
#  - wrongdev / work: a plan of cuda:0 with its input / its work area on
#    cuda:1 (no peer access): the exec returns CUFFT_SUCCESS, the stream's
#    synchronisation CUDA_ERROR_ILLEGAL_ADDRESS, the sim naming the kernel
#    (simfft_pass) and the device 1 memory of that parameter;
#  - errors: CUFFT_INVALID_PLAN (1) for an unknown or destroyed plan,
#    CUFFT_INVALID_SIZE (8) for a size 0, CUFFT_INVALID_TYPE (3) for an
#    unknown type or mixed precisions, CUFFT_NOT_SUPPORTED (16) for half of
#    size 12, CUFFT_INVALID_VALUE (4) for an exec of the wrong type or
#    direction 0, CUFFT_NO_WORKSPACE (13) without a work area.
. "$ROOT/tests/lib.sh"
exe=$BUILD/tests/sim/fft_sim
[ -x "$exe" ] || fail "missing $exe (run make first)"
on_sim env SIMCUDA_DEVICES=2 "$exe" values >"$TMPD/values.out" 2>"$TMPD/values.err" ||
    { cat "$TMPD/values.out" "$TMPD/values.err" >&2; fail "fft_sim values failed"; }
expect_eq "cases computed" 17 "$(grep -c '^case .*: max error .* ok$' "$TMPD/values.out")"
expect_grep '^fft_sim values: 0 failed$' "$TMPD/values.out"
expect_no_grep 'simcuda' "$TMPD/values.err"
for m in wrongdev work; do
    on_sim env SIMCUDA_DEVICES=2 SIMCUDA_VERBOSE=1 "$exe" $m >"$TMPD/$m.out" 2>"$TMPD/$m.err" ||
        { cat "$TMPD/$m.out" "$TMPD/$m.err" >&2; fail "fft_sim $m failed"; }
    expect_grep "^$m: exec status 0, stream synchronize: cudaErrorIllegalAddress\$" "$TMPD/$m.out"
done
expect_grep '^simcuda: simfft_pass on device 0: pointer parameter 0 = 0x[0-9a-f]+ \(device 1 memory' "$TMPD/wrongdev.err"
expect_grep '^simcuda: simfft_pass on device 0: pointer parameter 2 = 0x[0-9a-f]+ \(device 1 memory' "$TMPD/work.err"
on_sim env SIMCUDA_DEVICES=2 "$exe" errors >"$TMPD/errors.out" 2>&1 || { cat "$TMPD/errors.out" >&2; fail "fft_sim errors"; }
expect_grep '^errors: unknown plan 1, size 0 8, type 3, half 12 16, mixed types 3, wrong exec 4, direction 0 4, destroyed 1, no work area 13$' \
    "$TMPD/errors.out"
echo "fft_sim: ok"
