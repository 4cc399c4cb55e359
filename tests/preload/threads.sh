#!/bin/sh
# Threads allocating, freeing and launching at once: no crash or hang, every
# launch counted, the one cross-device call site reported once with the count
# of its occurrences.  (Run it under `make SANITIZE=thread test` for races.)
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/threads" "$SIM_DIR/libcuda.so.1"
run "$TMPD/t" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/t.json" "$PT/threads"
tail -n 3 "$TMPD/t.err" >&2
expect_eq "status" 0 "$(rc_of "$TMPD/t")"
expect_eq "stdout" "threads: done" "$(cat "$TMPD/t.out")"
findings "$TMPD/t.json" >"$TMPD/t.f"
cat "$TMPD/t.f"
expect_eq "unique findings" 1 "$(grep -c '^device_mismatch kernel=_Z9th_kernelPfPKf param=1 ' "$TMPD/t.f")"
expect_grep '^summary errors=1 warnings=0$' "$TMPD/t.f"
python3 - "$TMPD/t.json" <<'PY' || fail "launch or finding counts"
import json, sys
last, summary = {}, None
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "finding":
        last[o["id"]] = o
    elif o["type"] == "summary":
        summary = o
counts = sorted(o["count"] for o in last.values())
assert counts == [8], counts
assert summary["launches_checked"] == 8 * 200 + 8, summary
PY
