#!/bin/sh
# Runtime test: every allocation kind on every device, pointer attributes, memset/memcpy.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_alloc
expect_grep '^ok$' "$TMPD/rt_alloc.out"
