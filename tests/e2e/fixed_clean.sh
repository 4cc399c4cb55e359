#!/bin/sh
# Every fixed sample runs clean under devcheck, through LD_PRELOAD and through
# the wrapper: no finding, every launch checked, the program's result and exit
# status unchanged.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
for s in $BUGGY_SAMPLES; do
    f=${s}_fixed
    need "$SAMPLES/$f"
    t=$TMPD/$f.preload
    run "$t" under_devcheck env DEVCHECK_OPTIONS="json_path=$t.json" "$SAMPLES/$f"
    canon "$f" "$t.json" "$t.canon"
    expect_clean "$f under LD_PRELOAD" "$t.canon"
    expect_eq "$f under LD_PRELOAD: exit status" 0 "$(rc_of "$t")"
    expect_grep "^$s: OK " "$t.out"
    t=$TMPD/$f.wrapper
    run "$t" "$DEVCHECK_BIN" --sim 4 --json "$t.json" -- "$SAMPLES/$f"
    canon "$f" "$t.json" "$t.canon"
    expect_clean "$f through the wrapper" "$t.canon"
    expect_eq "$f through the wrapper: exit status" 0 "$(rc_of "$t")"
    expect_grep "^$s: OK " "$t.out"
done
echo "ok: fixed samples clean"
