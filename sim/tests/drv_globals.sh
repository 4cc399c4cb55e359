#!/bin/sh
# cuModuleGetGlobal_v2 / cuLibraryGetGlobal: one copy per context, initial values, freed with the module.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
on_sim env SIMCUDA_DEVICES=4 "$BUILD/tests/sim/drv_globals" || fail "drv_globals"
