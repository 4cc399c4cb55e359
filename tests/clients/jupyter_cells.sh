#!/bin/sh
# Issue 41: PyTorch's device error in IPython's cells, as a Jupyter kernel
# runs them (ipykernel's compiler is IPython's CachingCompiler, whose cache
# names each cell's code and maps the name to its execution count; IPython's
# shell here, fed one cell a line on stdin, under the wrapper, 2 GPUs):
#  - cell 2 makes a CPU tensor `a`, cell 3 a tensor `b` on cuda:0, cell 4
#    concatenates them: IPython's traceback says `Cell In[4], line 1`, and
#    devcheck's report names the cells as IPython does (`at Cell In[4],
#    line 1`, not the cell's file name `<ipython-input-4-...>` or
#    `ipykernel_<pid>/<hash>.py`), with `b` allocated at `Cell In[3], line 1`
#    and `a` -- a CPU tensor no cell 4 statement made -- made at
#    `Cell In[2], line 1`, the cell that made it;
#  - JSON keeps the real file names (the cells' code names), and the same
#    lines.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
cat >"$TMPD/cells" <<'PY'
import torch
a = torch.ones(4)
b = torch.ones(4, device="cuda:0")
torch.cat([b, a])
print("cells: done")
PY
IPYTHONDIR=$TMPD/ipython "$DEVCHECK" --sim 2 --json "$TMPD/cells.json" -- "$PY" -m IPython --simple-prompt --no-banner \
    --colors=nocolor <"$TMPD/cells" >"$TMPD/cells.out" 2>"$TMPD/cells.err" ||
    { tail "$TMPD/cells.err" >&2; fail "ipython failed"; }
sed 's/^/    err> /' "$TMPD/cells.err"
expect_grep 'cells: done' "$TMPD/cells.out"
expect_grep '^Cell In\[4\], line 1$' "$TMPD/cells.out"            # IPython's own name for the cell
expect_grep '^==devcheck== ERROR: framework_device_error: ' "$TMPD/cells.err"
expect_grep '^    at Cell In\[4\], line 1 in <module>' "$TMPD/cells.err"
expect_grep '^      b: cuda:0, allocated at Cell In\[3\], line 1 in <module>$' "$TMPD/cells.err"
expect_grep '^      a: cpu, made at Cell In\[2\], line 1 in <module>$' "$TMPD/cells.err"
expect_no_grep 'ipython-input|ipykernel_' "$TMPD/cells.err"
got=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") != "finding":
        continue
    def at(p):
        return "%s:%s" % ("cell" if p and p["file"].startswith("<ipython-input-") else "?", p and p["line"]) if p else "-"
    print(r["kind"], "at=" + at(r["at"]), " ".join("%s@%s@%s" % (t["expr"], at(t.get("alloc_at")), at(t.get("made_at")))
                                                for t in r["tensors"]))' "$TMPD/cells.json")
expect_eq "cells: JSON" "framework_device_error at=cell:1 b@cell:1@- a@-@cell:1" "$got"
