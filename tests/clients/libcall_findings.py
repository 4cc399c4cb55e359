"""Prints each finding of a devcheck JSON Lines file (argv[1]; the last
line per id, in id order) as one line:

  KIND API ARGUMENT launch=DEVICE owner=DEVICE at=LINE

LINE is the line of the launch's Python frame in the program argv[2] ("-"
when no frame is there): what a test of a library call compares
(tests/clients/libcall_wrong.sh)."""
import json
import sys

path, src = sys.argv[1], sys.argv[2]
recs = {}
for text in open(path):
    if text.strip():
        r = json.loads(text)
        if r.get("type") == "finding":
            recs[r["id"]] = r
for i in sorted(recs):
    r = recs[i]
    at = next((f["line"] for f in r.get("launch_python_stack") or [] if f.get("file") == src), "-")
    print("%s %s %s launch=%s owner=%s at=%s" % (r["kind"], r.get("api"), r.get("argument"), r["launch"]["device"],
                                                (r.get("operand") or {}).get("owner_device"), at))
