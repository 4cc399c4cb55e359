#!/bin/sh
# Issue 14, devcheck report FILE...: merges JSON Lines of several ranks (each
# written by a bare LD_PRELOAD with json_path=r.%r.jsonl and its own RANK)
# into one deduplicated report; a corrupt line and a truncated last line are
# named with file and line number and skipped, every valid record kept; the
# merged files name the rank; exit status 1 when errors were found, 0 when
# none, 2 for a file that cannot be read.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN" "$DEVCHECK_LIB"
for r in 0 1; do
    run "$TMPD/r$r" under_devcheck env RANK=$r DEVCHECK_OPTIONS="json_path=$TMPD/r.%r.jsonl" \
        "$OP/outprog" launch "$r" 0                 # rank 0 correct, rank 1 uses cuda:0's memory
    expect_eq "rank $r: status" 0 "$(rc_of "$TMPD/r$r")"
done
[ -s "$TMPD/r.0.jsonl" ] && [ -s "$TMPD/r.1.jsonl" ] || fail "%r: no r.0.jsonl / r.1.jsonl"
run "$TMPD/again" under_devcheck env RANK=1 DEVCHECK_OPTIONS="json_path=$TMPD/again.%r.jsonl" "$OP/outprog" launch 1 0
cp "$TMPD/r.1.jsonl" "$TMPD/copy.jsonl"
echo 'garbage {"type":' >>"$TMPD/r.0.jsonl"                       # line 2: corrupt
head -n 1 "$TMPD/copy.jsonl" | head -c 200 >>"$TMPD/r.1.jsonl"   # line 3: cut, no newline
run "$TMPD/m" "$DEVCHECK_BIN" report --json "$TMPD/m.jsonl" --sarif "$TMPD/m.sarif" --junit "$TMPD/m.xml" \
    "$TMPD/r.0.jsonl" "$TMPD/r.1.jsonl"
expect_eq "report: status (errors found)" 1 "$(rc_of "$TMPD/m")"
expect_grep "^devcheck: $TMPD/r.0.jsonl:2: not JSON .*; skipped$" "$TMPD/m.err"
expect_grep "^devcheck: $TMPD/r.1.jsonl:3: truncated record .*; skipped$" "$TMPD/m.err"
expect_eq "report: stderr lines" 2 "$(wc -l <"$TMPD/m.err")"
expect_grep '^==devcheck== error: device_mismatch: kernel out_add.* launched on cuda:1' "$TMPD/m.out"
expect_grep '^    seen 1 time in: pid [0-9]+ rank 1 on ' "$TMPD/m.out"
expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) in 1 kernel; 2 launches checked, .*; 2 processes$' "$TMPD/m.out"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD/m.jsonl" || fail "merged JSON invalid"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/tests/schemas/sarif-schema-2.1.0.json" "$TMPD/m.sarif" || fail "SARIF invalid"
expect_eq "report: merged records" "finding rank=[1] count=1
summary findings=1 ranks=[0, 1]" "$(py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "finding":
        print("finding rank=%s count=%d" % ([p["rank"] for p in o["processes"]], o["count"]))
    else:
        print("summary findings=%d ranks=%s" % (o["findings"], sorted(p["rank"] for p in o["processes"])))' "$TMPD/m.jsonl")"
expect_eq "report: SARIF names the rank" "[1]" "$(py '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
print([p["rank"] for p in r[0]["properties"]["processes"]])' "$TMPD/m.sarif")"
# options anywhere until `--` (issue 29): before (above), between and after
# the files, and a file named like an option after `--`, give the same
# report, status and files
merged() {
    py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "finding":
        print("finding %s rank=%s count=%d" % (o["kind"], [p["rank"] for p in o["processes"]], o["count"]))
    else:
        print("summary findings=%d ranks=%s" % (o["findings"], sorted(p["rank"] for p in o["processes"])))' "$1"
}
cp "$TMPD/r.1.jsonl" "$TMPD/--json"
for order in between after dashdash; do
    rm -f "$TMPD/o.jsonl" "$TMPD/o.sarif" "$TMPD/o.xml"
    case $order in
        between) run "$TMPD/o" "$DEVCHECK_BIN" report "$TMPD/r.0.jsonl" --json "$TMPD/o.jsonl" --sarif "$TMPD/o.sarif" \
                     "$TMPD/r.1.jsonl" --junit "$TMPD/o.xml" ;;
        after) run "$TMPD/o" "$DEVCHECK_BIN" report "$TMPD/r.0.jsonl" "$TMPD/r.1.jsonl" --json "$TMPD/o.jsonl" \
                   --sarif="$TMPD/o.sarif" --junit "$TMPD/o.xml" ;;
        dashdash) run "$TMPD/o" sh -c 'cd "$1" && shift && exec "$@"' sh "$TMPD" "$DEVCHECK_BIN" report \
                      --json o.jsonl r.0.jsonl --sarif o.sarif --junit=o.xml -- --json ;;
    esac
    expect_eq "report, options $order: status" 1 "$(rc_of "$TMPD/o")"
    expect_eq "report, options $order: stdout" "$(cat "$TMPD/m.out")" "$(cat "$TMPD/o.out")"
    expect_eq "report, options $order: stderr lines" 2 "$(wc -l <"$TMPD/o.err")"
    expect_eq "report, options $order: merged JSON" "finding device_mismatch rank=[1] count=1
summary findings=1 ranks=[0, 1]" "$(merged "$TMPD/o.jsonl")"
    [ -s "$TMPD/o.sarif" ] && [ -s "$TMPD/o.xml" ] || fail "report, options $order: no SARIF or JUnit"
done
expect_grep "^devcheck: --json:3: truncated record" "$TMPD/o.err"
# the same finding from two processes is one finding with both shares
run "$TMPD/d" "$DEVCHECK_BIN" report "$TMPD/copy.jsonl" "$TMPD/again.1.jsonl"
expect_grep '^devcheck: SUMMARY: 1 finding .*; 2 processes$' "$TMPD/d.out"
expect_grep '^    seen 2 times in: pid [0-9]+ rank 1 on [^,]+ \(1\), pid [0-9]+ rank 1 on .* \(1\)$' "$TMPD/d.out"
# no errors: 0; an unreadable file: 2
run "$TMPD/z" "$DEVCHECK_BIN" report "$TMPD/r.0.jsonl"
expect_eq "report clean: status" 0 "$(rc_of "$TMPD/z")"
expect_grep '^devcheck: SUMMARY: 0 findings' "$TMPD/z.out"
run "$TMPD/u" "$DEVCHECK_BIN" report "$TMPD/nonexistent.jsonl"
expect_eq "report unreadable: status" 2 "$(rc_of "$TMPD/u")"
expect_grep "cannot read '$TMPD/nonexistent.jsonl'" "$TMPD/u.err"
echo "report: ok"
