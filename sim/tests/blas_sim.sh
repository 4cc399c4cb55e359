#!/bin/sh
# blas_sim: the sim's cuBLAS and cuBLASLt compute real values and fault as a
# GPU does (sim/tests/blas_sim.c says what each mode asserts), on two
# simulated GPUs: `values` every GEMM form (the grouped one too), GEMV,
# dot (their _64 forms too), axpy, scal, nrm2, ger (strided and negative
# increments, complex, device pointer mode, a host result of a handle whose
# device is not the current one), rotg in host pointer mode, symv, hemv,
# syr, her, syr2, her2, syrk, herk, syr2k, her2k, symm, hemm, trmm, rotm, the
# Lt epilogues against a host reference; `wrong` a B of cuda:1 in a GEMM on cuda:0 and `array` one in a device pointer array: CUDA_ERROR_ILLEGAL_ADDRESS at the
# next synchronisation, sticky; `host` a pageable host bias: the same;
# `peer` the B of cuda:1 with peer access: legal, right values; `lu` the
# batched LU (getrf/getrsBatched) against the host (a pivot outside 1..n
# refused), `lu_wrong` a B of
# cuda:1 in its pointer array: the same fault; `dot_wrong` a host-mode
# cublasSdot_v2 of cuda:1's y: CUBLAS_STATUS_EXECUTION_FAILED, the result
# untouched, the fault sticky.  The
# faulting launch is the library's kernel inside the call (SIMCUDA_VERBOSE
# names it).
. "$ROOT/tests/lib.sh"
P=$BUILD/tests/sim/blas_sim
[ -x "$P" ] || fail "missing $P (run make first)"
for mode in values wrong peer array host lu lu_wrong dot_wrong; do
    on_sim env SIMCUDA_DEVICES=2 SIMCUDA_VERBOSE=1 "$P" $mode >"$TMPD/$mode.out" 2>"$TMPD/$mode.err"
    rc=$?
    [ $rc = 0 ] || { cat "$TMPD/$mode.out" "$TMPD/$mode.err" >&2; fail "blas_sim $mode: exit $rc"; }
    expect_grep "^blas_sim $mode: ok\$" "$TMPD/$mode.out"
done
expect_grep '^simcuda: simblas_gemm on device 0: pointer parameter 2 = 0x[0-9a-f]+ \(device 1 memory' "$TMPD/wrong.err"
expect_grep '^simcuda: simblas_gemm_batched on device 0: the host twin accessed 0x[0-9a-f]+ \(device 1 memory' "$TMPD/array.err"
expect_grep '^simcuda: simblas_gemm on device 0: pointer parameter 5 = 0x[0-9a-f]+ \(pageable host memory\)' "$TMPD/host.err"
expect_grep '^simcuda: simblas_getrs_batched on device 0: the host twin accessed 0x[0-9a-f]+ \(device 1 memory' "$TMPD/lu_wrong.err"
expect_grep '^simcuda: simblas_gemm on device 0: pointer parameter 2 = 0x[0-9a-f]+ \(device 1 memory' "$TMPD/dot_wrong.err"
expect_no_grep 'simcuda' "$TMPD/values.err"
# lu: item 3's NULL pointer, in one line, once; getrs's pivot outside 1..n
# (refused, not a write past the matrix), in one line
expect_eq "blas_sim lu: lines" 2 "$(grep -c 'simcuda' "$TMPD/lu.err")"
expect_grep '^simcuda: libcublas.so.13: cublas<t>getrsBatched: a pivot outside 1..n' "$TMPD/lu.err"
expect_grep '^simcuda: libcublas.so.13: cublasDgetrfBatched: a matrix pointer of the batch \(item 3: \(nil\)\) is no allocation' "$TMPD/lu.err"
expect_no_grep 'simcuda' "$TMPD/peer.err"
echo "blas_sim: ok"
