#!/bin/sh
# The pointer-query table (sim/driver/README.md, "Pointer queries") on 2 GPUs,
# without and with pageable memory access (SIMCUDA_HMM=1).
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
on_sim env SIMCUDA_DEVICES=2 "$BUILD/tests/sim/drv_ptrattr" || fail "drv_ptrattr"
on_sim env SIMCUDA_DEVICES=2 SIMCUDA_HMM=1 "$BUILD/tests/sim/drv_ptrattr" || fail "drv_ptrattr, SIMCUDA_HMM=1"
