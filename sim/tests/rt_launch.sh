#!/bin/sh
# Runtime test: <<<>>> and cudaLaunchKernel* launches computed by the host twin; symbols; config errors; launch into another device's stream fails.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_launch
expect_grep '^ok$' "$TMPD/rt_launch.out"
