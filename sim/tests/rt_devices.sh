#!/bin/sh
# Runtime test: device count, properties, per-thread current device, streams, events, last error, error names and strings.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_devices
expect_grep '^ok$' "$TMPD/rt_devices.out"
