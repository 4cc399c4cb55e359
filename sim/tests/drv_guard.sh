#!/bin/sh
# Host twins under the device's view of memory: the program's SIGSEGV handler kept, other threads' copies wait, RTLD_LOCAL twins found.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
on_sim env SIMCUDA_DEVICES=4 "$BUILD/tests/sim/drv_guard" || fail "drv_guard"
