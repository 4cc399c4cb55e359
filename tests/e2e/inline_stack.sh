#!/bin/sh
# The launch stack of a launch inside an inlined function
# (tests/e2e/inline_prog.cu, always_inline): from the one return address,
# the inlined function at the launch's line, then its caller at the line of
# the call, in the text report and the JSON (same module offset), for the
# interposer and CUPTI paths.  Lines are found in the source by their
# comments, so the test follows edits.  Guards the symbolizer's inline chain
# (report/symbolize.c), which no sample exercises.
. "$ROOT/tests/lib.sh"
prog=$BUILD/tests/e2e/inline_prog
src=$ROOT/tests/e2e/inline_prog.cu
[ -x "$prog" ] || fail "missing $prog"
l_launch=$(grep -n '// the launch$' "$src" | cut -d: -f1)
l_call=$(grep -n '// the call$' "$src" | cut -d: -f1)
for backend in interpose cupti; do
    t=$TMPD/$backend
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json:backend=$backend" \
        "$prog" >"$t.out" 2>"$t.err"
    expect_eq "inline_prog ($backend): status" 0 "$?"
    # CUPTI's callback runs inside the runtime: its frames come first there
    # (the interposer's stack starts at the program)
    grep -A1 ' launch_inlined at ' "$t.err" >"$t.pair"
    expect_grep "^      #[0-9]+ launch_inlined at tests/e2e/inline_prog.cu:$l_launch \(inline_prog\+0x[0-9a-f]+\)$" "$t.pair"
    expect_grep "^      #[0-9]+ main at tests/e2e/inline_prog.cu:$l_call \(inline_prog\+0x[0-9a-f]+\)$" "$t.pair"
    python3 - "$t.json" "$l_launch" "$l_call" <<'PY' || fail "inline_prog ($backend): JSON launch stack (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
f = [r for r in recs if r["type"] == "finding"]
assert len({r["id"] for r in f}) == 1, f
st = f[-1]["launch_stack"]
st = st[next((i for i, s in enumerate(st) if s["function"] == "launch_inlined"), 0):]
got = [(s["function"], s["file"], s["line"]) for s in st[:2]]
want = [("launch_inlined", "tests/e2e/inline_prog.cu", int(sys.argv[2])),
        ("main", "tests/e2e/inline_prog.cu", int(sys.argv[3]))]
if got != want or st[0]["offset"] != st[1]["offset"] or st[0]["module"] != st[1]["module"]:
    print("    got %s" % json.dumps(st), file=sys.stderr)
    sys.exit(1)
PY
done
