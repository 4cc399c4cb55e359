#!/bin/sh
# The correct pipeline (peer copies, cross-device event waits, one direct read
# over enabled peer access) yields no error: with the default peer=warn exactly
# one peer_access warning for the direct read (expected/pipeline_peer.txt),
# through LD_PRELOAD and the wrapper; the same finding as an error with
# peer=error; none with peer=ignore; none when the topology has no 2-3 link
# (the sample copies instead).  The program succeeds in every case.  Three
# ways: backend=both, interpose and cupti.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SAMPLES/pipeline_peer"
exp=$E2E/expected/pipeline_peer.txt
expect_launch_sites "$exp"

for b in $BACKENDS; do
    t=$TMPD/default.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/pipeline_peer"
    canon pipeline_peer "$t.json" "$t.canon" "$b"
    expect_no_grep '^[a-z_]+ severity=error' "$t.canon"
    grep -E ' severity=' "$t.canon" | grep -Ev '^peer_access severity=warning ' >"$t.other" || true
    [ -s "$t.other" ] && { cat "$t.other" >&2; fail "pipeline_peer: findings other than peer_access warnings, backend=$b"; }
    expect_findings "$exp" "$t.canon" "pipeline_peer, peer=warn, backend=$b"
    expect_eq "pipeline_peer, backend=$b: exit status" 0 "$(rc_of "$t")"

    t=$TMPD/wrapper.$b
    run "$t" "$DEVCHECK_BIN" --sim 4 --backend "$b" --json "$t.json" -- "$SAMPLES/pipeline_peer"
    canon pipeline_peer "$t.json" "$t.canon" "$b"
    expect_findings "$exp" "$t.canon" "pipeline_peer through the wrapper, backend=$b"
    expect_eq "pipeline_peer through the wrapper, backend=$b: exit status" 0 "$(rc_of "$t")"

    t=$TMPD/ignore.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json:peer=ignore" "$SAMPLES/pipeline_peer"
    canon pipeline_peer "$t.json" "$t.canon" "$b"
    expect_clean "pipeline_peer, peer=ignore, backend=$b" "$t.canon"
    expect_eq "pipeline_peer, peer=ignore, backend=$b: exit status" 0 "$(rc_of "$t")"

    t=$TMPD/error.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json:peer=error" "$SAMPLES/pipeline_peer"
    canon pipeline_peer "$t.json" "$t.canon" "$b"
    sed 's/^peer_access severity=warning /peer_access severity=error /; s/^summary errors=0 warnings=1 /summary errors=1 warnings=0 /' \
        "$exp" >"$t.expected"
    expect_findings "$t.expected" "$t.canon" "pipeline_peer, peer=error, backend=$b"
    expect_eq "pipeline_peer, peer=error, backend=$b: the program's exit status" 0 "$(rc_of "$t")"

    t=$TMPD/nolink.$b
    run "$t" under_devcheck env SIMCUDA_PEER=0-1,1-2 DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/pipeline_peer"
    canon pipeline_peer "$t.json" "$t.canon" "$b"
    expect_clean "pipeline_peer without a 2-3 link, backend=$b" "$t.canon"
    expect_eq "pipeline_peer without a 2-3 link, backend=$b: exit status" 0 "$(rc_of "$t")"
done
echo "ok: correct pipeline"
