#!/bin/sh
# Runtime test: fork before and after initialisation; children exit cleanly.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_fork
expect_grep '^ok$' "$TMPD/rt_fork.out"
