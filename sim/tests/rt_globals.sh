#!/bin/sh
# __device__ / __constant__ variables through the runtime, one copy per device; a device's copy passed to another device's kernel faults.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
on_sim env SIMCUDA_DEVICES=4 "$BUILD/tests/sim/rt_globals" >"$TMPD/out" 2>&1 || { cat "$TMPD/out" >&2; fail "rt_globals"; }
expect_grep '^rt_globals: OK$' "$TMPD/out"
