#!/bin/sh
# Runtime test: eight threads using every device at once.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_stress
expect_grep '^ok$' "$TMPD/rt_stress.out"
