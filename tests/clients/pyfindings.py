"""Prints the Python side of each finding of a devcheck JSON Lines file, one
canonical line per finding (the last line per id), in id order:

  KIND kernel=NAME launch=FILE:LINE alloc=FILE:LINE nvtx=A>B
  framework_device_error at=FILE:LINE tensors=EXPR@DEVICE@FILE:LINE,... hint=...
  pointer_refused owner=cuda:N current=cuda:N param=N at=FILE:LINE tensors=... hint=...

FILE:LINE is the innermost Python frame in the user's own code (not
site-packages, not the standard library), its file as a basename; "-" when
there is none.  For framework_device_error, at= and each tensor's line are
devcheck's own `at` and `alloc_at` (made:FILE:LINE: `made_at`, a CPU
tensor's making statement), checked against the stacks they come from.  NAME is the demangled kernel name without its parameters.
Then one line: `summary errors=N launches=N`.

With --facts (before the file), one line per distinct fact instead, sorted,
for the findings that are not framework_device_error:

  KIND SEVERITY call=KERNEL|API operand=pPARAM|ARGUMENT launch=D owner=O at=FILE:LINE

(the kernel's name as above, or the library call's API and argument; at= the
launch's innermost user frame), then the summary line."""
import json
import os
import sys


def user(stack):
    for f in stack or []:
        path = f.get("file") or ""
        if path.startswith("<") or "/site-packages/" in path or "/lib/python3." in path or \
                path.endswith("/_devcheck_hook.py"):
            continue
        return "%s:%s" % (os.path.basename(path), f.get("line"))
    return "-"


def loc(frame):
    return "%s:%s" % (os.path.basename(frame["file"]), frame["line"]) if frame else "-"


facts = sys.argv[1] == "--facts"
recs, summary = {}, None
for line in open(sys.argv[-1]):
    if not line.strip():
        continue
    r = json.loads(line)
    if r.get("type") == "summary":
        summary = r
    elif r.get("type") == "finding":
        recs[r["id"]] = r
if facts:
    lines = set()
    for r in recs.values():
        if r["kind"] == "framework_device_error":
            continue
        call = (r.get("kernel") or "").split("(")[0] or r.get("api") or "?"
        op = r.get("operand") or {}
        what = r.get("argument") or "p%s" % op.get("param", "-")
        lines.add("%s %s call=%s operand=%s launch=%s owner=%s at=%s" % (
            r["kind"], r["severity"], call, what, r["launch"]["device"], op.get("owner_device", "-"),
            user(r.get("launch_python_stack"))))
    for fact in sorted(lines):
        print(fact)
    recs = {}
for i in sorted(recs):
    r = recs[i]
    nvtx = ">".join(r.get("nvtx") or []) or "-"
    if r["kind"] in ("framework_device_error", "pointer_refused"):
        at = loc(r.get("at"))
        assert at == user(r.get("launch_python_stack")), (at, "is not the op stack's first user frame")
        ts = []
        for t in r["tensors"]:
            alloc = loc(t.get("alloc_at"))
            assert alloc == user(t.get("alloc_python_stack")), (alloc, "is not the allocation's first user frame")
            made = loc(t.get("made_at"))
            ts.append("%s@%s@%s" % (t["expr"], t["device"], alloc if alloc != "-" else
                                    "made:" + made if made != "-" else "-"))
        head = r["kind"]
        if r["kind"] == "pointer_refused":
            assert r["launch"]["device"] == r["launch"]["current_device"], "launch.device is not the current device"
            head += " owner=cuda:%s current=cuda:%s param=%s" % (r["owner_device"], r["launch"]["current_device"],
                                                                  r.get("param"))
        print("%s at=%s tensors=%s nvtx=%s hint=%s" % (head, at, ",".join(ts), nvtx, r.get("hint", "-")))
        continue
    kernel = (r.get("kernel") or "?").split("(")[0]
    print("%s kernel=%s launch=%s alloc=%s nvtx=%s" % (r["kind"], kernel, user(r.get("launch_python_stack")),
                                                    user(r.get("alloc_python_stack")), nvtx))
if summary:
    print("summary errors=%d launches=%d" % (summary["errors"], summary["launches_checked"]))
