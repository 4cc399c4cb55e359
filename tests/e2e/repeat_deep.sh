#!/bin/sh
# A finding repeated from a deep stack is one finding, whichever path of
# devcheck decides each occurrence (issue 38): bench/launches' repeat and
# suppressed sections launch 8 kernels in turn, each handed device 1's memory
# (peer access on), 40 frames below the section, 200 launches each.  The
# first occurrences take the whole check; later ones the thread's word memo
# (core/verdict/check.c), which captures the launch stack from a shorter
# chain of devcheck's own frames: the stack keeps DC_STACK_MAX frames beyond
# them (report/stack.c finding_kept), so the key is the same.  Asserted:
# exactly 8 peer_access findings, k_repeat<0..7>, each of count 25 with the
# same 44-frame launch stack; the 200 suppressed launches counted under their
# suppression; no k_suppressed finding.
. "$ROOT/tests/lib.sh"
prog=$BUILD/bench/launches
[ -x "$prog" ] || fail "missing $prog"
printf '{\n   bench-suppressed\n   devcheck:peer_access\n   kernel:*k_suppressed*\n}\n' >"$TMPD/b.supp"
under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$TMPD/j.json:suppressions=$TMPD/b.supp" \
    "$prog" repeat,suppressed 96 10 >"$TMPD/out" 2>"$TMPD/err"
expect_eq "launches repeat,suppressed: status" 0 $?
python3 - "$TMPD/j.json" <<'PY' || fail "the findings (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
errs = []
got = sorted((r["kind"], r["kernel"].split("(")[0], r["count"]) for r in found)
want = [("peer_access", "void k_repeat<%d>" % i, 25) for i in range(8)]
if got != want:
    errs.append("findings %r, want %r" % (got, want))
depths = {len(r["launch_stack"]) for r in found}
if len(depths) != 1:
    errs.append("launch stacks of different depths: %r" % sorted(depths))
summ = [r for r in recs if r["type"] == "summary"][-1]
supp = [(s["name"], s["count"]) for s in summ["suppressed"]]
if supp != [("bench-suppressed", 200)]:
    errs.append("suppressed %r, want [('bench-suppressed', 200)]" % supp)
if errs:
    print("    " + "\n    ".join(errs), file=sys.stderr)
    sys.exit(1)
PY
true
