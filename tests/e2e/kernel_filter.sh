#!/bin/sh
# Issue 29: the kernel name filters at verbosity 2.  vision_merge launches
# project (clean) and concat (its operand is cuda:1's): with
# --kernel-name-exclude=concat, concat's verbosity-2 line says it is
# excluded (and no layout line or per-launch line is printed for it) while
# project's gives its layout; with --kernel-name==concat, project's says it
# is not selected.  The findings and counts follow the filter.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SAMPLES/vision_merge"
PROJECT=_Z7projectPKfPffi CONCAT=_Z6concatPKfS0_Pfii

run "$TMPD/x" "$DEVCHECK_BIN" --sim 4 --kernel-name-exclude=concat --verbosity=2 --json "$TMPD/x.json" -- \
    "$SAMPLES/vision_merge"
expect_eq "exclude: kernel lines" "devcheck: kernel $PROJECT: 4 parameters (layout from the driver); 2 pointer words checked, 0 of unknown meaning
devcheck: kernel $CONCAT: excluded by kernel_name_exclude: not checked" "$(grep '^devcheck: kernel ' "$TMPD/x.err")"
expect_eq "exclude: launch lines" "devcheck: checked $PROJECT on cuda:1 (4 params): 0 errors" \
    "$(grep '^devcheck: checked ' "$TMPD/x.err")"
expect_grep '^devcheck: SUMMARY: 0 findings \(0 errors, 0 warnings\) in 0 kernels; 1 launch checked, 0 unchecked ' "$TMPD/x.err"
canon vision_merge "$TMPD/x.json" "$TMPD/x.canon"
expect_eq "exclude: findings" "" "$(grep -v '^summary' "$TMPD/x.canon")"

run "$TMPD/i" "$DEVCHECK_BIN" --sim 4 --kernel-name==concat --verbosity 2 --json "$TMPD/i.json" -- \
    "$SAMPLES/vision_merge"
expect_eq "include: kernel lines" "devcheck: kernel $PROJECT: not selected by kernel_name: not checked
devcheck: kernel $CONCAT: 5 parameters (layout from the driver); 3 pointer words checked, 0 of unknown meaning" \
    "$(grep '^devcheck: kernel ' "$TMPD/i.err")"
expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\) in 1 kernel; 1 launch checked, 0 unchecked ' "$TMPD/i.err"
python3 - "$TMPD/i.json" "$CONCAT" <<'PY' || fail "include: the finding is not concat's device_mismatch on cuda:0 <- cuda:1"
import json, sys
f = [o for o in map(json.loads, open(sys.argv[1])) if o["type"] == "finding"]
assert [(o["kind"], o["kernel_mangled"], o["launch"]["device"], o["operand"]["owner_device"]) for o in f] == \
    [("device_mismatch", sys.argv[2], 0, 1)], f
PY
echo "ok: kernel filters at verbosity 2"
