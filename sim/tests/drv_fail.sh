#!/bin/sh
# SIMCUDA_FAIL and SIMCUDA_MEM_MB fault injection.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_MEM_MB=64 SIMCUDA_FAIL=cuMemAlloc_v2:2,cuStreamCreate:1,cuMemcpyHtoD:1,cuCtxEnablePeerAccess:1 "$T/drv_fail" || fail "drv_fail"
