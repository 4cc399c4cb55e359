#!/bin/sh
# CUDA graphs: node order, parameter copies, exec updates, faults in graph kernels.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim "$T/drv_graph" || fail "drv_graph"
