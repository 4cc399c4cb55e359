#!/bin/sh
# Launch checks and report formats: runs test_check (C assertions on findings,
# counts, text blocks), then validates its JSON Lines output against
# report/finding.schema.json and the scenario facts (check_reports.py).
. "$ROOT/tests/lib.sh"
bin=$BUILD/tests/unit/test_check
[ -x "$bin" ] || fail "missing $bin (make $bin)"
"$bin" "$TMPD/out" || fail "test_check failed"
python3 "$ROOT/tests/unit/check_reports.py" "$TMPD/out" || fail "JSON output checks failed"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/out/*.json \
    || fail "schema validation failed"
echo "check_reports: ok"
