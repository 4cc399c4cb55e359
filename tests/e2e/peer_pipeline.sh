#!/bin/sh
# The correct pipeline (peer copies, cross-device event waits, one direct read
# over enabled peer access) yields no error: with the default peer=warn exactly
# one peer_access warning for the direct read (expected/pipeline_peer.txt),
# through LD_PRELOAD and the wrapper; the same finding as an error with
# peer=error; none with peer=ignore; none when the topology has no 2-3 link
# (the sample copies instead).  The program succeeds in every case.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SAMPLES/pipeline_peer"
exp=$E2E/expected/pipeline_peer.txt
expect_launch_sites "$exp"

t=$TMPD/default
run "$t" under_devcheck env DEVCHECK_OPTIONS="json_path=$t.json" "$SAMPLES/pipeline_peer"
canon pipeline_peer "$t.json" "$t.canon"
expect_no_grep '^[a-z_]+ severity=error' "$t.canon"
grep -E ' severity=' "$t.canon" | grep -Ev '^peer_access severity=warning ' >"$t.other" || true
[ -s "$t.other" ] && { cat "$t.other" >&2; fail "pipeline_peer: findings other than peer_access warnings"; }
expect_findings "$exp" "$t.canon" "pipeline_peer, peer=warn"
expect_eq "pipeline_peer: exit status" 0 "$(rc_of "$t")"

t=$TMPD/wrapper
run "$t" "$DEVCHECK_BIN" --sim 4 --json "$t.json" -- "$SAMPLES/pipeline_peer"
canon pipeline_peer "$t.json" "$t.canon"
expect_findings "$exp" "$t.canon" "pipeline_peer through the wrapper"
expect_eq "pipeline_peer through the wrapper: exit status" 0 "$(rc_of "$t")"

t=$TMPD/ignore
run "$t" under_devcheck env DEVCHECK_OPTIONS="json_path=$t.json:peer=ignore" "$SAMPLES/pipeline_peer"
canon pipeline_peer "$t.json" "$t.canon"
expect_clean "pipeline_peer, peer=ignore" "$t.canon"
expect_eq "pipeline_peer, peer=ignore: exit status" 0 "$(rc_of "$t")"

t=$TMPD/error
run "$t" under_devcheck env DEVCHECK_OPTIONS="json_path=$t.json:peer=error" "$SAMPLES/pipeline_peer"
canon pipeline_peer "$t.json" "$t.canon"
sed 's/^peer_access severity=warning /peer_access severity=error /; s/^summary errors=0 warnings=1 /summary errors=1 warnings=0 /' \
    "$exp" >"$t.expected"
expect_findings "$t.expected" "$t.canon" "pipeline_peer, peer=error"
expect_eq "pipeline_peer, peer=error: the program's exit status" 0 "$(rc_of "$t")"

t=$TMPD/nolink
run "$t" under_devcheck env SIMCUDA_PEER=0-1,1-2 DEVCHECK_OPTIONS="json_path=$t.json" "$SAMPLES/pipeline_peer"
canon pipeline_peer "$t.json" "$t.canon"
expect_clean "pipeline_peer without a 2-3 link" "$t.canon"
expect_eq "pipeline_peer without a 2-3 link: exit status" 0 "$(rc_of "$t")"
echo "ok: correct pipeline"
