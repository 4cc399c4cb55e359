#!/bin/sh
# Bad input (garbage handles, NULL outputs, unmapped pointers) never crashes the driver.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim "$T/drv_robust" || fail "drv_robust"
