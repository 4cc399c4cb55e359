#!/bin/sh
# Runtime test: cudaGetDriverEntryPoint(ByVersion) returns the driver's
# functions and variants; device flags; cudaDeviceReset.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_entry
expect_grep '^ok$' "$TMPD/rt_entry.out"
