#!/bin/sh
# The sim's cuRAND host API (sim/libs/curand/) on 2 simulated GPUs:
# curand_sim.c checks each distribution's moments, seeds, offsets,
# consecutive calls, a host generator agreeing with the device's, and what
# curand.h refuses; `fault`: an output of cuda:0 faults cuda:1, the
# generator's, as on a GPU (SIMCUDA_VERBOSE=1 names the kernel and the
# parameter).
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER
T=$BUILD/tests/sim/curand
for mode in all fault; do
    t=$TMPD/$mode
    on_sim env SIMCUDA_DEVICES=2 SIMCUDA_VERBOSE=1 "$T/curand_sim" $mode >"$t.out" 2>"$t.err"
    rc=$?
    [ $rc = 0 ] || { cat "$t.out" "$t.err" >&2; fail "curand_sim $mode: status $rc"; }
done
expect_grep '^curand_sim all: done$' "$TMPD/all.out"
expect_eq "lines of the sim's" "simcuda: libcurand.so.10: quasirandom (Sobol) generators are not simulated: CURAND_STATUS_TYPE_ERROR" \
    "$(grep '^simcuda' "$TMPD/all.err")"
expect_grep '^fault: cuda:1 after curandGenerateUniform into cuda:0: cudaErrorIllegalAddress$' "$TMPD/fault.out"
expect_grep '^simcuda: curandSimGenerate on device 1: pointer parameter 0 = 0x[0-9a-f]+ \(device 0 memory' \
    "$TMPD/fault.err"
echo "curand_sim: ok"
