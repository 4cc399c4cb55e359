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
    cmp -s "$TMPD/plain.out" "$t.out" || { diff -u "$TMPD/plain.out" "$t.out" >&2; fail "backend=$b: stdout differs"; }
    expect_eq "backend=$b: exit status" "$(rc_of "$TMPD/plain")" "$(rc_of "$t")"
done

# A libcupti that subscribes but enables no callback (fake_cupti.c with
# FAKE_CUPTI_SUBSCRIBE): one line, and interposition alone, also with
# backend=cupti (which once kept its hooks passing through, blind).
fake=$BUILD/tests/cupti/fakecupti/libcupti.so.13
need "$fake"
for b in both cupti; do
    t=$TMPD/blind_$b
    run "$t" under_devcheck env DEVCHECK_CUPTI="$fake" FAKE_CUPTI_SUBSCRIBE=1 \
        DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    expect_eq "blind, backend=$b: lines about CUPTI" 1 "$(grep -c 'CUPTI' "$t.err")"
    expect_grep '^devcheck: CUPTI: cannot enable the driver callbacks: fake CUPTI error; running on interposition alone$' "$t.err"
    canon "$s" "$t.json" "$t.canon" interpose
    expect_findings "$E2E/expected/$s.txt" "$t.canon" "$s with a blind libcupti, backend=$b"
    cmp -s "$TMPD/plain.out" "$t.out" || { diff -u "$TMPD/plain.out" "$t.out" >&2; fail "blind, backend=$b: stdout differs"; }
    expect_eq "blind, backend=$b: exit status" "$(rc_of "$TMPD/plain")" "$(rc_of "$t")"
done
# A libcupti that enables every callback but the driver's launch callbacks
# (FAKE_CUPTI_SUBSCRIBE=launches): backend=cupti would see no launch, so it
# gives CUPTI up in one line and the hooks check; backend=both keeps its
# subscription (its hooks check the launches anyway) and says nothing.
for b in both cupti; do
    t=$TMPD/nolaunch_$b
    run "$t" under_devcheck env DEVCHECK_CUPTI="$fake" FAKE_CUPTI_SUBSCRIBE=launches \
        DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    if [ $b = cupti ]; then
        expect_eq "no launch callbacks, backend=$b: lines about CUPTI" 1 "$(grep -c 'CUPTI' "$t.err")"
        expect_grep '^devcheck: CUPTI: cannot enable the launch callbacks: fake CUPTI error; running on interposition alone$' "$t.err"
    else
        expect_eq "no launch callbacks, backend=$b: lines about CUPTI" 0 "$(grep -c 'CUPTI' "$t.err")"
    fi
    canon "$s" "$t.json" "$t.canon" interpose
    expect_findings "$E2E/expected/$s.txt" "$t.canon" "$s with a libcupti without launch callbacks, backend=$b"
    cmp -s "$TMPD/plain.out" "$t.out" || { diff -u "$TMPD/plain.out" "$t.out" >&2; fail "no launch callbacks, backend=$b: stdout differs"; }
    expect_eq "no launch callbacks, backend=$b: exit status" "$(rc_of "$TMPD/plain")" "$(rc_of "$t")"
done
echo "ok: DEVCHECK_CUPTI missing; a libcupti that enables nothing; one without launch callbacks"
