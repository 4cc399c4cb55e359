#!/bin/sh
# nvcc-built cubin/fatbin kernels run through host twins; launch faults, sticky errors, access grants; pageable memory with and without SIMCUDA_HMM.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_DEVICES=4 "$T/drv_launch" || fail "drv_launch"
on_sim env SIMCUDA_DEVICES=4 SIMCUDA_HMM=1 "$T/drv_launch" || fail "drv_launch with SIMCUDA_HMM=1"
