#!/bin/sh
# Another subscriber holds CUPTI (libholder.so subscribes as "holder-test"
# from its constructor, before devcheck's first CUDA call): devcheck says so
# in exactly one line naming the holder and runs on interposition alone, with
# the interposer's findings intact (expected/vision_merge.txt, detected by
# interpose, also with backend=cupti); the program's stdout and exit status
# are those of the same run without devcheck.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
s=vision_merge
need "$DEVCHECK_LIB" "$CT/libholder.so" "$SAMPLES/$s" "$SIM_DIR/libcupti.so.13"
holder_preload="${SAN_PRELOAD:+$SAN_PRELOAD }$CT/libholder.so"

run "$TMPD/plain" env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="$holder_preload" "$SAMPLES/$s"
for b in both cupti; do
    t=$TMPD/$b
    run "$t" env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="$holder_preload $DEVCHECK_LIB" \
        DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    expect_eq "backend=$b: lines about CUPTI" 1 "$(grep -c 'CUPTI' "$t.err")"
    expect_grep '^devcheck: CUPTI: held by another subscriber \(.*holder-test.*\); running on interposition alone$' "$t.err"
    canon "$s" "$t.json" "$t.canon" interpose
    expect_findings "$E2E/expected/$s.txt" "$t.canon" "$s with CUPTI held, backend=$b"
    expect_same_run "backend=$b" "$TMPD/plain" "$t"
done
echo "ok: CUPTI held by another subscriber"
