#!/bin/sh
# --stats in a PyTorch process (issue 38): a framework device error's report
# symbolizes its tensors' allocation stacks in the sinks, outside every
# launch check; the symbolizer times every stack it names, so the table
# counts them: demo/python/embedding_lookup.py (uncaught, one
# framework_device_error and its launch-free report) under the wrapper with
# --stats: "1 new" finding, symbolization of at least its two tensors'
# stacks, a non-zero part of it outside the checks, and the total is the
# start-up + launch checks + library calls + that part (to the printed
# 0.001 ms).  Before the timer moved into dc_stack_symbolize_ex the sinks'
# symbolization was not counted (symbolization outside them 0).
# At exit the transfer matrix names the copy's call site (JSON summary,
# "transfers"): the program's Python line (torch's Module.to, convert at
# .../torch/nn/modules/module.py), now decided from the frames' lines alone
# (report/jsonl.c site_by_lines, no native frame named), as the whole
# symbolization did.
. "$ROOT/tests/lib.sh"
need_pyenv
"$BUILD/bin/devcheck" --stats --json="$TMPD/out.json" -- "$PY" "$ROOT/demo/python/embedding_lookup.py" >"$TMPD/out" 2>"$TMPD/err"
expect_eq "embedding_lookup.py: status (PyTorch's own error, uncaught)" 1 $?
expect_grep '^devcheck: stats: +findings +1 new, 0 repeated, 0 suppressed$' "$TMPD/err"
line=$(grep -E '^devcheck: stats: +CPU time ' "$TMPD/err") || fail "no CPU time line (above)"
parts=$(grep -E '^devcheck: stats: +of which ' "$TMPD/err") || fail "no 'of which' line (above)"
python3 - "$line" "$parts" <<'PY' || fail "the stats (above)"
import re, sys
line, parts = sys.argv[1:]
m = re.search(r"([0-9.]+) ms total: start-up ([0-9.]+) ms, launch checks ([0-9.]+) ms \([0-9]+ ns per launch\), "
              r"library calls ([0-9.]+) ms, symbolization outside them ([0-9.]+) ms$", line)
p = re.search(r"symbolization ([0-9.]+) ms \(([0-9]+) stacks\)", parts)
errs = []
if not m or not p:
    errs.append("unparsed: %r / %r" % (line, parts))
else:
    total, start, checks, lib, outside = map(float, m.groups())
    sym, stacks = float(p.group(1)), int(p.group(2))
    if abs(total - (start + checks + lib + outside)) > 0.005:
        errs.append("total %.3f != start + checks + library calls + outside (%.3f)" % (total, start + checks + lib + outside))
    if outside <= 0:
        errs.append("no symbolization counted outside the checks: %r" % line)
    if stacks < 2:
        errs.append("symbolization of %d stacks: the two tensors' allocation stacks at least" % stacks)
    if sym + 0.005 < outside:
        errs.append("symbolization %.3f < its part outside the checks %.3f" % (sym, outside))
if errs:
    print("    " + "\n    ".join(errs), file=sys.stderr)
    sys.exit(1)
PY
true
python3 - "$TMPD/out.json" <<'PY' || fail "the transfer matrix's call site (above)"
import json, re, sys
sites = [s["site"] for line in open(sys.argv[1]) for r in [json.loads(line)] if r.get("type") == "summary"
         for t in r.get("transfers", []) for s in t["sites"]]
if not sites or not all(re.fullmatch(r"convert at .*/torch/nn/modules/module\.py:[0-9]+", s) for s in sites):
    print("    sites: %r" % (sites,), file=sys.stderr)
    sys.exit(1)
PY
