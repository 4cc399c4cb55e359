#!/bin/sh
# Report mode changes neither the program's stdout nor its exit status: every
# sample (buggy, fixed, correct) gives the same stdout and exit status on the
# sim alone, under LD_PRELOAD and through the wrapper, with each backend
# (both, interpose, cupti).
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
programs=$CORRECT_SAMPLES
for s in $BUGGY_SAMPLES; do programs="$programs $s ${s}_fixed"; done
for p in $programs; do
    need "$SAMPLES/$p"
    run "$TMPD/$p.plain" on_sim "$SAMPLES/$p"
    hows=""
    for b in $BACKENDS; do
        run "$TMPD/$p.preload.$b" under_devcheck env DEVCHECK_OPTIONS="backend=$b" "$SAMPLES/$p"
        run "$TMPD/$p.wrapper.$b" "$DEVCHECK_BIN" --sim 4 --backend "$b" -- "$SAMPLES/$p"
        hows="$hows preload.$b wrapper.$b"
    done
    [ -s "$TMPD/$p.plain.out" ] || [ "$(rc_of "$TMPD/$p.plain")" != 0 ] ||
        fail "$p: no result line on stdout"
    for how in $hows; do
        cmp -s "$TMPD/$p.plain.out" "$TMPD/$p.$how.out" || {
            diff -u "$TMPD/$p.plain.out" "$TMPD/$p.$how.out" >&2
            fail "$p: stdout differs under devcheck ($how)"
        }
        expect_eq "$p: exit status under devcheck ($how)" \
            "$(rc_of "$TMPD/$p.plain")" "$(rc_of "$TMPD/$p.$how")"
    done
done
echo "ok: report mode is transparent"
