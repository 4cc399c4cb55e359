#!/bin/sh
# NVTX ranges (libdevcheck.so as the NVTX injection library): with
# NVTX_INJECTION64_PATH set, the finding of a launch inside ranges names them
# outermost first (RangePushA, RangePushEx, a domain's registered string), a
# launch after the pops and a launch from another thread name none; without
# it (no NVTX injection), the same program gives the same findings with no
# NVTX at all.  Under every sanitizer.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/nvtx"
nvtx_of() {     # the nvtx field of each finding, in id order
    python3 - "$1" <<'PY'
import json, sys
recs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("type") == "finding":
        recs[r["id"]] = r
for i in sorted(recs):
    print(">".join(recs[i].get("nvtx", [])) or "-")
PY
}
run "$TMPD/on" under_devcheck env NVTX_INJECTION64_PATH="$DEVCHECK_LIB" DEVCHECK_OPTIONS="json_path=$TMPD/on.json" \
    "$PT/nvtx"
expect_eq "nvtx status" 0 "$(rc_of "$TMPD/on")"
expect_eq "nvtx stdout" "nvtx: done" "$(cat "$TMPD/on.out")"
expect_eq "ranges of the three launches" "model.forward>decoder.layer.3>attention
-
-" "$(nvtx_of "$TMPD/on.json")"
expect_grep '^    NVTX: model.forward > decoder.layer.3 > attention$' "$TMPD/on.err"
run "$TMPD/off" under_devcheck env -u NVTX_INJECTION64_PATH DEVCHECK_OPTIONS="json_path=$TMPD/off.json" "$PT/nvtx"
expect_eq "without injection: status" 0 "$(rc_of "$TMPD/off")"
expect_eq "without injection: findings, no NVTX" "-
-
-" "$(nvtx_of "$TMPD/off.json")"
expect_no_grep 'NVTX' "$TMPD/off.err"
