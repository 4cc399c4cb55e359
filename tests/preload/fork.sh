#!/bin/sh
# fork() while another thread is inside devcheck: every child exits cleanly
# (no lock inherited held), the parent's findings are still reported.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/fork_test" "$SIM_DIR/libcuda.so.1"
run "$TMPD/f" timeout 120 sh -c '. "$ROOT/tests/lib.sh"; under_devcheck env DEVCHECK_OPTIONS="json_path=$1" "$2"' sh "$TMPD/f.json" "$PT/fork_test"
tail -n 5 "$TMPD/f.err" >&2
expect_eq "status" 0 "$(rc_of "$TMPD/f")"
expect_eq "stdout" "fork: 20 children ok" "$(cat "$TMPD/f.out")"
findings "$TMPD/f.json" >"$TMPD/f.f"
expect_grep '^device_mismatch kernel=_Z11fork_kernelPfPKf param=1 launch=0 owner=1 ' "$TMPD/f.f"
