#!/bin/sh
# Runtime test: CUDA called from another library's constructor.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_ctor
expect_grep '^ok$' "$TMPD/rt_ctor.out"
