#!/bin/sh
# Every allocation kind on every device, pointer attributes, peer copies, pools, VMM, IPC, 1M small allocations.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim env SIMCUDA_DEVICES=4 "$T/drv_memory" || fail "drv_memory"
