#!/bin/sh
# error_exitcode: a program that succeeds but had errors exits N; a program's
# own failure status is kept; no errors -> the program's status.  Through
# DEVCHECK_OPTIONS and through the wrapper's --error-exitcode.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$DEVCHECK_BIN" "$PT/xdev" "$SIM_DIR/libcuda.so.1"
check() {   # WHAT EXPECTED_STATUS CMD...
    _w=$1 _e=$2; shift 2
    run "$TMPD/e" "$@"
    sed "s/^/    [$_w] /" "$TMPD/e.err"
    expect_eq "$_w: status" "$_e" "$(rc_of "$TMPD/e")"
    expect_eq "$_w: stdout" "xdev: done" "$(cat "$TMPD/e.out")"
}
check "runtime, no exitcode" 0 under_devcheck "$PT/xdev" runtime
check "runtime, exitcode 9" 9 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9 "$PT/xdev" runtime
check "driver, exitcode 9" 9 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9 "$PT/xdev" driver
check "clean, exitcode 9" 0 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9 "$PT/xdev" clean
check "peer, exitcode 9" 0 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9 "$PT/xdev" peer
check "fail, exitcode 9" 3 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9 "$PT/xdev" fail
check "wrapper runtime" 9 "$DEVCHECK_BIN" --sim 4 --error-exitcode 9 -- "$PT/xdev" runtime
check "wrapper fail" 3 "$DEVCHECK_BIN" --sim 4 --error-exitcode 9 -- "$PT/xdev" fail
check "wrapper clean" 0 "$DEVCHECK_BIN" --sim 4 --error-exitcode=9 "$PT/xdev" clean
check "mode=off" 0 under_devcheck env DEVCHECK_OPTIONS=error_exitcode=9:mode=off "$PT/xdev" runtime
expect_no_grep 'devcheck' "$TMPD/e.err"                 # off: not a word
