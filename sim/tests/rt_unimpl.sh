#!/bin/sh
# Runtime test: an unimplemented entry point returns cudaErrorNotSupported and
# prints one line naming it, once.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_unimpl
expect_grep '^ok$' "$TMPD/rt_unimpl.out"
n=$(grep -c '^simcuda: cudaUserObjectCreate is not implemented$' "$TMPD/rt_unimpl.out")
expect_eq "lines naming cudaUserObjectCreate" 1 "$n"
