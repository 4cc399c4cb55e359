#!/bin/sh
# Runtime test: SIMCUDA_FAIL=cuMemAlloc_v2:1 makes the first cudaMalloc fail
# with cudaErrorMemoryAllocation.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
SIMCUDA_FAIL=cuMemAlloc_v2:1 rt_run rt_inject
expect_grep '^ok$' "$TMPD/rt_inject.out"
