#!/bin/sh
# Concurrent calls from 8 threads over 4 devices.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_DEVICES=4 "$T/drv_threads" || fail "drv_threads"
