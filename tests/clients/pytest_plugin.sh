#!/bin/sh
# devcheck's pytest plugin (issue 41; packaging/python/devcheck/pytest_plugin.py):
# a split vision-language merge under pytest, four tests: one that catches
# the device error and passes, one with pytest.raises marked
# devcheck_expected, one that dies of it, one correct; one marked test that
# provokes nothing.  Under default capture (the library's blocks go to the
# captured stderr):
#  - `pytest --devcheck` runs again under the wrapper by itself;
#  - the terminal summary's devcheck section names each test with its
#    findings by node id, with the report the library wrote (torch's message,
#    each tensor's line), the pytest.raises one as expected, the marked test
#    that found nothing as such; the correct test is not named;
#  - the JSON records carry the test's node id ("test");
#  - JUnit: each finding is a `devcheck` property of its own testcase;
#  - --devcheck-fail fails the catching test (an unexpected error), never
#    the expected one, and fails the marked test that found nothing;
#  - --gen-suppressions writes for the pytest.raises error an entry (op:cat,
#    py: frames) that hides that error alone: the same op at the same line
#    from the two other tests is still reported.
. "$ROOT/tests/lib.sh"
need_pyenv
"$PY" -c "import pytest" 2>/dev/null || fail "no pytest in the Python client environment"
cat >"$TMPD/test_vlm.py" <<'PY'
import pytest
import torch


def merge():
    inputs_embeds = torch.zeros(1, 8, 16, device="cuda:0")
    image_features = torch.ones(1, 4, 16, device="cuda:1") * 2.0
    return torch.cat([inputs_embeds, image_features], dim=1)


def test_caught():
    try:
        merge()
    except RuntimeError:
        pass


@pytest.mark.devcheck_expected("framework_device_error")
def test_raises():
    with pytest.raises(RuntimeError):
        merge()


def test_uncaught():
    merge()


def test_correct():
    a = torch.zeros(2, device="cuda:0")
    (a + 1).sum()


@pytest.mark.devcheck_expected
def test_marked_quiet():
    torch.zeros(2, device="cuda:0")
PY
export PYTHONPATH="$ROOT/packaging/python${PYTHONPATH:+:$PYTHONPATH}" PATH="$BUILD/bin:$PATH"
cd "$TMPD" || fail "no $TMPD"
run_pytest() {    # NAME ARGS...: pytest with the plugin, rc in NAME.rc
    _n=$1; shift
    DEVCHECK_OPTIONS="json_path=$TMPD/$_n.json" "$PY" -m pytest -p devcheck.pytest_plugin -p no:cacheprovider \
        --devcheck --devcheck-options "--sim 2" "$@" test_vlm.py >"$TMPD/$_n.out" 2>"$TMPD/$_n.err"
    echo $? >"$TMPD/$_n.rc"
}
run_pytest plain --junitxml="$TMPD/plain.xml"
expect_eq "pytest: status (test_uncaught failed)" 1 "$(cat "$TMPD/plain.rc")"
expect_grep '1 failed, 4 passed' "$TMPD/plain.out"
expect_grep '^=+ devcheck =+$' "$TMPD/plain.out"
expect_grep '^test_vlm.py::test_caught: 1 finding$' "$TMPD/plain.out"
expect_grep '^test_vlm.py::test_raises: 1 finding \(1 expected\)$' "$TMPD/plain.out"
expect_grep '^test_vlm.py::test_uncaught: 1 finding$' "$TMPD/plain.out"
expect_no_grep '^test_vlm.py::test_correct' "$TMPD/plain.out"
expect_grep '^test_vlm.py::test_marked_quiet: marked devcheck_expected, and no such finding occurred$' "$TMPD/plain.out"
expect_grep '^    \(expected\) ==devcheck== error: framework_device_error: torch refused an op over devices: Expected all tensors to be on the same device' "$TMPD/plain.out"
expect_grep '^ +image_features: cuda:1, allocated at test_vlm.py:7 in merge$' "$TMPD/plain.out"
expect_grep '^ +test: test_vlm.py::test_caught$' "$TMPD/plain.out"
expect_grep '^devcheck: 3 tests with findings; 2 unexpected errors, 1 expected$' "$TMPD/plain.out"
python3 - "$TMPD/plain.json" "$TMPD/plain.xml" <<'PYCHECK' || fail "JSON records / JUnit properties"
import json, sys, xml.etree.ElementTree as ET
recs = [json.loads(l) for l in open(sys.argv[1])]
tests = sorted(r.get("test") for r in recs if r.get("type") == "finding" and r["kind"] == "framework_device_error")
assert tests == ["test_vlm.py::test_caught", "test_vlm.py::test_raises", "test_vlm.py::test_uncaught"], tests
props = {}
for tc in ET.parse(sys.argv[2]).getroot().iter("testcase"):
    props[tc.get("name")] = [p.get("value") for p in tc.iter("property") if p.get("name") == "devcheck"]
for name in ("test_caught", "test_uncaught"):
    assert len(props[name]) == 1 and props[name][0].startswith("framework_device_error: torch refused"), props
assert len(props["test_raises"]) == 1 and props["test_raises"][0].startswith("expected: framework_device_error"), props
assert props["test_correct"] == [] and props["test_marked_quiet"] == [], props
PYCHECK
run_pytest fail --devcheck-fail
expect_eq "--devcheck-fail: status" 1 "$(cat "$TMPD/fail.rc")"
expect_grep '3 failed, 2 passed' "$TMPD/fail.out"
expect_grep 'FAILED test_vlm.py::test_caught' "$TMPD/fail.out"
expect_grep 'FAILED test_vlm.py::test_marked_quiet' "$TMPD/fail.out"
expect_no_grep 'FAILED test_vlm.py::test_raises' "$TMPD/fail.out"
# --gen-suppressions: the entry written for test_raises's error hides that
# error and nothing else (test_caught and test_uncaught run the same op at
# the same line, called from other tests)
DEVCHECK_OPTIONS="json_path=$TMPD/gen.json" "$PY" -m pytest -p devcheck.pytest_plugin -p no:cacheprovider \
    --devcheck --devcheck-options "--sim 2 --gen-suppressions --log-file $TMPD/gen.log" test_vlm.py \
    >"$TMPD/gen.out" 2>"$TMPD/gen.err"
awk '/^    test: test_vlm.py::test_raises$/ { want = 1 } want && /^\{$/ { on = 1 } on { print } on && /^\}$/ { exit }' \
    "$TMPD/gen.log" | sed 's/<insert_a_suppression_name_here>/raises-on-purpose/' >"$TMPD/raises.supp"
expect_grep '^   op:cat$' "$TMPD/raises.supp"
expect_grep '^   py:\*/test_vlm.py:test_raises:' "$TMPD/raises.supp"
DEVCHECK_OPTIONS="json_path=$TMPD/supp.json" "$PY" -m pytest -p devcheck.pytest_plugin -p no:cacheprovider \
    --devcheck --devcheck-options "--sim 2 --suppressions $TMPD/raises.supp" test_vlm.py \
    >"$TMPD/supp.out" 2>"$TMPD/supp.err"
expect_no_grep '^test_vlm.py::test_raises: [0-9]+ finding' "$TMPD/supp.out"
expect_grep '^test_vlm.py::test_caught: 1 finding$' "$TMPD/supp.out"
expect_grep '^test_vlm.py::test_uncaught: 1 finding$' "$TMPD/supp.out"
expect_grep 'used_suppression: 1 raises-on-purpose' "$TMPD/supp.err"
# --error-exitcode counts no error a devcheck_expected test provoked on
# purpose: test_raises alone exits 0 (7 before issue 41's item 8), its record
# says "expected"; test_caught's unmarked error still gives 7
run_pytest expect_only -k "raises or correct" --devcheck-options "--sim 2 --error-exitcode 7 --json $TMPD/expect_only.m.json"
expect_eq "--error-exitcode, only an expected error: status" 0 "$(cat "$TMPD/expect_only.rc")"
expect_grep 'error expected by the test \(devcheck_expected\)' "$TMPD/expect_only.err"
python3 -c 'import json, sys
fs = [json.loads(l) for l in open(sys.argv[1]) if "\"finding\"" in l]
sys.exit(not fs or not all(f.get("expected") is True for f in fs))' "$TMPD/expect_only.m.json" ||
    fail "--error-exitcode: the expected error's record does not say expected"
run_pytest expect_caught -k "test_raises or test_caught" --devcheck-options "--sim 2 --error-exitcode 7"
expect_eq "--error-exitcode, an unmarked error too: status" 7 "$(cat "$TMPD/expect_caught.rc")"
exit 0
