#!/bin/sh
# Bad DEVCHECK_OPTIONS: one clear line on stderr naming the problem; the
# program runs with the defaults, its stdout and exit status unchanged.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/xdev" "$SIM_DIR/libcuda.so.1"
run "$TMPD/ref" on_sim "$PT/xdev" clean
expect_eq "reference status" 0 "$(rc_of "$TMPD/ref")"
for bad in 'bogus_key=1' 'print_limit=abc' 'mode=sometimes' 'peer=maybe:json_path=x'; do
    run "$TMPD/b" under_devcheck env DEVCHECK_OPTIONS="$bad" "$PT/xdev" clean
    sed "s/^/    [$bad] /" "$TMPD/b.err"
    expect_eq "[$bad] status" 0 "$(rc_of "$TMPD/b")"
    cmp -s "$TMPD/ref.out" "$TMPD/b.out" || fail "[$bad] stdout changed"
    key=${bad%%=*}
    expect_eq "[$bad] lines naming '$key'" 1 "$(grep -c -- "$key" "$TMPD/b.err")"
    expect_eq "[$bad] ERROR lines" 1 "$(grep -c 'ERROR' "$TMPD/b.err")"
    expect_grep 'DEVCHECK_OPTIONS' "$TMPD/b.err"
    expect_grep 'SUMMARY' "$TMPD/b.err"                 # devcheck ran, with the defaults
done
# A failing program keeps its status and output too.
run "$TMPD/f" under_devcheck env DEVCHECK_OPTIONS='bogus_key=1' "$PT/xdev" fail
expect_eq "fail status" 3 "$(rc_of "$TMPD/f")"
expect_eq "fail stdout" "xdev: done" "$(cat "$TMPD/f.out")"
