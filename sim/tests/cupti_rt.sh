#!/bin/sh
# CUPTI on the sim, runtime domain: cudaMalloc and <<<>>> / cudaLaunchKernel callbacks with params, symbol names, contexts and correlation ids; the runtime's driver calls nested as driver callbacks (4 GPUs).
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run cupti_rt
expect_grep '^ok$' "$TMPD/cupti_rt.out"
