#!/bin/sh
# The core in a shared object drops its own frames from reports.
. "$ROOT/tests/lib.sh"
"$BUILD/tests/unit/test_ownframes" "$TMPD" || fail "test_ownframes failed"
