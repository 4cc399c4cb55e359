#!/bin/sh
# SIMCUDA_PEER topology.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_DEVICES=4 SIMCUDA_PEER=0-1,2-3 "$T/drv_peer" || fail "drv_peer"
