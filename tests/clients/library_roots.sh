#!/bin/sh
# User code told apart by where Python put it (issue 41), not by a folder's
# name: a library installed with `pip install --target` (a PYTHONPATH folder
# holding its .dist-info), an editable install (its source on sys.path, its
# direct_url.json in a .dist-info) and a folder named by --library-roots are
# not the user's code.  Each calls torch.cat over two devices; the
# framework_device_error's `at` is the script's own call line, never the
# library's, and --verbosity 1 says which rule named each folder.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
mkdir -p "$TMPD/target/vlmlib" "$TMPD/target/vlmlib-1.0.dist-info" "$TMPD/checkout/edlib" \
    "$TMPD/edsite/edlib-1.0.dist-info" "$TMPD/extra" "$TMPD/proj"
lib_body='import torch


def merge():
    a = torch.zeros(2, device="cuda:0")
    b = torch.zeros(2, device="cuda:1")
    return torch.cat([a, b])
'
printf '%s' "$lib_body" >"$TMPD/target/vlmlib/__init__.py"
printf 'Metadata-Version: 2.1\nName: vlmlib\nVersion: 1.0\n' >"$TMPD/target/vlmlib-1.0.dist-info/METADATA"
printf '%s' "$lib_body" >"$TMPD/checkout/edlib/__init__.py"
printf 'Metadata-Version: 2.1\nName: edlib\nVersion: 1.0\n' >"$TMPD/edsite/edlib-1.0.dist-info/METADATA"
printf '{"url": "file://%s/checkout", "dir_info": {"editable": true}}\n' "$TMPD" \
    >"$TMPD/edsite/edlib-1.0.dist-info/direct_url.json"
printf '%s' "$lib_body" >"$TMPD/extra/xlib.py"
cat >"$TMPD/proj/main.py" <<'PY'
import edlib
import vlmlib
import xlib

for merge in (vlmlib.merge, edlib.merge, xlib.merge):
    try:
        merge()
    except RuntimeError:
        pass
PY
cd "$TMPD/proj" || fail "no $TMPD/proj"
PYTHONPATH="$TMPD/target:$TMPD/edsite:$TMPD/checkout:$TMPD/extra" \
    "$DEVCHECK" --sim 2 --json "$TMPD/out.json" --library-roots "$TMPD/extra" --verbosity 1 -- "$PY" main.py \
    >"$TMPD/out" 2>"$TMPD/err"
expect_eq "status" 0 "$?"
python3 - "$TMPD/out.json" "$TMPD/proj/main.py" <<'PYCHECK' || fail "the framework errors' lines"
import json, sys
last = {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("type") == "finding" and r["kind"] == "framework_device_error":
        last[r["id"]] = r                       # the exit's line carries the final count
ats = {(r["at"]["file"], r["at"]["line"]) for r in last.values()}
assert ats == {(sys.argv[2], 7)}, ats           # the script's line, for each library
assert sum(r["count"] for r in last.values()) == 3, last
PYCHECK
expect_grep "Python library root \((distribution|pythonpath)\): $TMPD/target\$" "$TMPD/err"
expect_grep "Python library root \(editable\): $TMPD/checkout\$" "$TMPD/err"
expect_grep "Python library root \(option\): $TMPD/extra\$" "$TMPD/err"
exit 0
