#!/bin/sh
# DEVCHECK_CUPTI names a file that does not exist: one line saying so, and
# devcheck runs on interposition alone (expected/vision_merge.txt, detected
# by interpose, with backend=both and backend=cupti); the program's stdout
# and exit status unchanged.  backend=interpose does not look for CUPTI.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
s=vision_merge
need "$DEVCHECK_LIB" "$SAMPLES/$s"
missing=$TMPD/no/such/libcupti.so.13

run "$TMPD/plain" on_sim "$SAMPLES/$s"
for b in both cupti interpose; do
    t=$TMPD/$b
    run "$t" under_devcheck env DEVCHECK_CUPTI="$missing" DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    if [ $b = interpose ]; then
        expect_eq "backend=$b: lines about CUPTI" 0 "$(grep -c 'CUPTI' "$t.err")"
    else
        expect_eq "backend=$b: lines about CUPTI" 1 "$(grep -c 'CUPTI' "$t.err")"
        expect_grep "^devcheck: CUPTI: cannot load DEVCHECK_CUPTI=$missing \(.*\); running on interposition alone\$" "$t.err"
    fi
    canon "$s" "$t.json" "$t.canon" interpose
    expect_findings "$E2E/expected/$s.txt" "$t.canon" "$s with DEVCHECK_CUPTI missing, backend=$b"
    expect_same_run "backend=$b" "$TMPD/plain" "$t"
done

# under_fake TAG WHAT FAKE_MODE BACKEND LINE: vision_merge under the stand-in
# libcupti (fake_cupti.c, FAKE_CUPTI_SUBSCRIBE=FAKE_MODE): LINE is the one
# line about CUPTI expected (empty: none); the interposer's findings, stdout
# and exit status are as without devcheck.
fake=$BUILD/tests/cupti/fakecupti/libcupti.so.13
need "$fake"
under_fake() {
    tag=$1 what=$2 mode=$3 b=$4 line=$5
    t=$TMPD/${tag}_$b
    run "$t" under_devcheck env DEVCHECK_CUPTI="$fake" FAKE_CUPTI_SUBSCRIBE="$mode" \
        DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    expect_eq "$what, backend=$b: lines about CUPTI" "$([ -n "$line" ] && echo 1 || echo 0)" "$(grep -c 'CUPTI' "$t.err")"
    [ -z "$line" ] || expect_grep "$line" "$t.err"
    canon "$s" "$t.json" "$t.canon" interpose
    expect_findings "$E2E/expected/$s.txt" "$t.canon" "$s with $what, backend=$b"
    expect_same_run "$what, backend=$b" "$TMPD/plain" "$t"
}

# A libcupti that subscribes but enables no callback: one line, and
# interposition alone, also with backend=cupti (which once kept its hooks
# passing through, blind).
for b in both cupti; do
    under_fake blind "a blind libcupti" 1 $b \
        '^devcheck: CUPTI: cannot enable the driver callbacks: fake CUPTI error; running on interposition alone$'
done
# A libcupti that enables every callback but the driver's launch callbacks:
# backend=cupti would see no launch, so it gives CUPTI up in one line and the
# hooks check; backend=both keeps its subscription (its hooks check the
# launches anyway) and says nothing.
under_fake nolaunch "a libcupti without launch callbacks" launches both ''
under_fake nolaunch "a libcupti without launch callbacks" launches cupti \
    '^devcheck: CUPTI: cannot enable the launch callbacks: fake CUPTI error; running on interposition alone$'
echo "ok: DEVCHECK_CUPTI missing; a libcupti that enables nothing; one without launch callbacks"
