#!/bin/sh
# Every fixed sample runs clean under devcheck, through LD_PRELOAD and through
# the wrapper: no finding, every launch checked, the program's result and exit
# status unchanged; three ways (backend=both|interpose|cupti).
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
for b in $BACKENDS; do
    for s in $BUGGY_SAMPLES; do
        f=${s}_fixed
        need "$SAMPLES/$f"
        t=$TMPD/$f.preload.$b
        run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$f"
        canon "$f" "$t.json" "$t.canon" "$b"
        expect_clean "$f under LD_PRELOAD, backend=$b" "$t.canon"
        expect_eq "$f under LD_PRELOAD, backend=$b: exit status" 0 "$(rc_of "$t")"
        expect_grep "^$s: OK " "$t.out"
        t=$TMPD/$f.wrapper.$b
        run "$t" "$DEVCHECK_BIN" --sim 4 --backend "$b" --json "$t.json" -- "$SAMPLES/$f"
        canon "$f" "$t.json" "$t.canon" "$b"
        expect_clean "$f through the wrapper, --backend $b" "$t.canon"
        expect_eq "$f through the wrapper, --backend $b: exit status" 0 "$(rc_of "$t")"
        expect_grep "^$s: OK " "$t.out"
    done
done
echo "ok: fixed samples clean"
