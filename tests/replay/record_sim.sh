#!/bin/sh
# --record-launches DIR on the sim, then devcheck replay DIR/*.jsonl: the
# replay gives the live run's findings (kind, kernel, parameter, launch
# device, owner device, current device) for every buggy e2e sample and the
# correct pipeline_peer; the recording never changes the program (same
# stdout and exit status as without it); an unwritable DIR is one line on
# stderr and the program runs on.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13"

# findings JSON: one line per unique launch finding, sorted
findings() {
    python3 - "$1" <<'PY'
import json, sys
seen = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "finding" and r["kind"] not in ("async_error", "framework_device_error"):
        seen[r["id"]] = r
out = set()
for r in seen.values():
    o = r.get("operand") or {}
    out.add("%s %s kernel=%s param=%s launch=%s owner=%s current=%s" % (
        r["kind"], r["severity"], r["kernel"], o.get("param", "-"), r["launch"]["device"],
        o.get("owner_device", "-"), r["launch"].get("current_device", "-")))
print("\n".join(sorted(out)))
PY
}

failed=""
for s in $BUGGY_SAMPLES $CORRECT_SAMPLES; do
    (
        need "$SAMPLES/$s"
        t=$TMPD/$s
        run "$t.plain" "$DEVCHECK_BIN" --sim 4 -- "$SAMPLES/$s"
        run "$t.live" "$DEVCHECK_BIN" --sim 4 --json "$t.live.json" --record-launches "$t.rec" -- "$SAMPLES/$s"
        expect_same_run "$s: recording" "$t.plain" "$t.live"
        ls "$t.rec"/*.jsonl >/dev/null 2>&1 || fail "$s: nothing recorded in $t.rec"
        run "$t.rep" "$DEVCHECK_BIN" replay --json "$t.rep.json" "$t.rec"/*.jsonl
        expect_no_grep 'skipped' "$t.rep.err"
        findings "$t.live.json" >"$t.live.f"
        findings "$t.rep.json" >"$t.rep.f"
        case $s in
            pipeline_peer) expect_no_grep ' error ' "$t.live.f" ;;
            *) expect_grep ' error ' "$t.live.f" ;;
        esac
        cmp -s "$t.live.f" "$t.rep.f" || { diff -u "$t.live.f" "$t.rep.f" >&2; fail "$s: the replay's findings differ from the live run's"; }
    ) || failed="$failed $s"
done
[ -z "$failed" ] || fail "record -> replay differs for:$failed"

# an unwritable directory: one line, the program runs on unchanged
s=vision_merge
t=$TMPD/unwritable
run "$t.plain" "$DEVCHECK_BIN" --sim 4 -- "$SAMPLES/$s"
run "$t" "$DEVCHECK_BIN" --sim 4 --record-launches /proc/devcheck-no-such-dir -- "$SAMPLES/$s"
expect_same_run "unwritable record_launches" "$t.plain" "$t"
expect_eq "unwritable record_launches: lines about it" 1 "$(grep -c 'record_launches: cannot write /proc/devcheck-no-such-dir/' "$t.err")"
echo "ok: record on the sim, replay: the live run's findings"
