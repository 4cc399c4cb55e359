#!/bin/sh
# --stats (DEVCHECK_OPTIONS=stats=1, issue 38): at exit one table of
# devcheck's own cost on the log and a "stats" object in the JSON summary,
# whose counts agree with the run: tests/e2e/repeat_prog.cu's two-sites mode
# hands cuda:1's memory to a kernel on cuda:0 three times from one line and
# once from another (2 findings new, 2 occurrences repeated); with a
# suppression matching them, 4 occurrences suppressed and none new; the
# stacks symbolized (4: two launch and two allocation stacks; suppressed: the
# two launch stacks the suppression is matched against).  Without the
# option: no table, no "stats".  (tests/clients/stats_torch.sh: the sinks'
# symbolization outside the checks.)
. "$ROOT/tests/lib.sh"
prog=$BUILD/tests/e2e/repeat_prog
[ -x "$prog" ] || fail "missing $prog"
printf '{\n   all-mismatches\n   devcheck:device_mismatch\n   kernel:*\n}\n' >"$TMPD/all.supp"
for run in stats suppressed plain; do
    opts="json_path=$TMPD/$run.json"
    [ "$run" = plain ] || opts="$opts:stats=1"
    [ "$run" = suppressed ] && opts="$opts:suppressions=$TMPD/all.supp"
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="$opts" "$prog" two-sites >"$TMPD/$run.out" 2>"$TMPD/$run.err"
    expect_eq "repeat_prog two-sites ($run): status" 0 $?
done
for run in stats suppressed; do
    case $run in stats) want="2 0 2 0" ;; suppressed) want="0 0 0 4" ;; esac
    python3 - "$TMPD/$run.json" $want <<'PY' || fail "$run: the JSON stats (above)"
import json, sys
path = sys.argv[1]
new, calls, repeated, suppressed = map(int, sys.argv[2:])
summ = [json.loads(l) for l in open(path) if '"type":"summary"' in l][-1]
s = summ["stats"]
errs = []
def want(name, got, exp):
    if got != exp:
        errs.append("%s: got %r, want %r" % (name, got, exp))
want("findings_new", s["findings_new"], new)
want("findings_repeated", s["findings_repeated"], repeated)
want("findings_suppressed", s["findings_suppressed"], suppressed)
want("library_calls_checked", s["library_calls_checked"], calls)
want("launches_checked", s["launches_checked"], summ["launches_checked"])
want("launches_unchecked", s["launches_unchecked"], summ["launches_unchecked"])
# every launch the hooks checked was timed, and each new finding's report
want("timed launch_checks", s["timed"]["launch_checks"], summ["launches_checked"] + summ["launches_unchecked"])
want("timed reports", s["timed"]["reports"], new + (1 if suppressed else 0) * 2)
c = s["cpu_ns"]
want("total = start + checks + symbolization outside them", c["total"],
     c["start"] + c["launch_checks"] + c["library_calls"] + c["symbolization_outside"])
# the symbolizer times each stack it names: a new finding's launch and
# allocation stacks; a suppressed one's launch stack only (matched, not
# printed); all inside the launch checks (no sink runs outside them here)
want("timed symbolization", s["timed"]["symbolization"], 2 * new if new else 2)
want("symbolization_outside", c["symbolization_outside"], 0)
want("per_launch", c["per_launch"], c["launch_checks"] // max(s["timed"]["launch_checks"], 1))
for part in ("reports", "symbolization", "python_frames"):
    if not 0 <= c[part] <= c["launch_checks"]:
        errs.append("cpu_ns.%s %r is not a part of the launch checks %r" % (part, c[part], c["launch_checks"]))
if c["symbolization"] <= 0 or s["timed"]["symbolization"] < 1:
    errs.append("no symbolization timed: %r" % (s,))
t = s["table_bytes"]
want("table_bytes total", t["total"], sum(v for k, v in t.items() if k != "total"))
for k in ("allocation registry", "kernel descriptions", "findings store", "stack depot"):
    if not t.get(k, 0) > 0:
        errs.append("table %r: %r" % (k, t.get(k)))
if errs:
    print("    " + "\n    ".join(errs), file=sys.stderr)
    sys.exit(1)
PY
done
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "the JSON records do not validate against report/finding.schema.json"
expect_grep '^devcheck: STATS: ' "$TMPD/stats.err"
expect_grep '^devcheck: stats: +findings +2 new, 2 repeated, 0 suppressed$' "$TMPD/stats.err"
expect_grep '^devcheck: stats: +findings +0 new, 0 repeated, 4 suppressed$' "$TMPD/suppressed.err"
expect_grep '^devcheck: stats: +CPU time +[0-9.]+ ms total: start-up [0-9.]+ ms, launch checks [0-9.]+ ms \([0-9]+ ns per launch\), library calls [0-9.]+ ms, symbolization outside them [0-9.]+ ms$' "$TMPD/stats.err"
expect_grep '^devcheck: stats: +of which .*symbolization [0-9.]+ ms \(4 stacks\)' "$TMPD/stats.err"
grep -q 'STATS' "$TMPD/plain.err" && fail "plain run: a STATS table without stats=1"
grep -q '"stats"' "$TMPD/plain.json" && fail "plain run: a \"stats\" object without stats=1"
true
