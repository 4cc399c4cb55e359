#!/bin/sh
# CUPTI on the sim, driver and resource domains: params, return values, symbol names, contexts, correlation ids, one subscriber at a time, enable/disable, unsubscribe, threads (4 GPUs).
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_DEVICES=4 "$T/cupti_drv" || fail "cupti_drv"
