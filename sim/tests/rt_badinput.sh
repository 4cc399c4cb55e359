#!/bin/sh
# Runtime test: bad input yields errors, never a crash.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_badinput
expect_grep '^ok$' "$TMPD/rt_badinput.out"
