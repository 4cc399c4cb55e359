#!/bin/sh
# Issue 14, CI files: SARIF 2.1.0 validated against the official schema
# (tests/schemas/) and checked field by field against the JSON Lines of the
# same run (rule per kind, ruleId, level, the launch site relative to the
# source root with its line, the allocation site as a related location,
# partialFingerprints = the fingerprint, equal across runs); JUnit XML
# validated against Ant's JUnit.xsd, one uniquely named failing testcase per
# finding, one passing testcase for a clean run.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_BIN"
command -v xmllint >/dev/null || fail "xmllint missing (Debian's libxml2-utils: mk/deps.sh installs it)"
SCHEMA=$ROOT/tests/schemas/sarif-schema-2.1.0.json
runit() {   # PREFIX [wrapper options]
    _p=$1; shift
    run "$_p" "$DEVCHECK_BIN" --sim 4 --sarif "$_p.sarif" --junit "$_p.xml" --json "$_p.json" "$@" -- \
        "$OP/outprog" closefds "$TMPD/own.txt"
    expect_eq "$_p: status" 0 "$(rc_of "$_p")"
    python3 "$ROOT/tests/unit/jsonschema_lite.py" "$SCHEMA" "$_p.sarif" || fail "$_p.sarif: not valid SARIF 2.1.0"
    xmllint --noout --schema "$ROOT/tests/schemas/JUnit.xsd" "$_p.xml" 2>"$_p.xmllint" ||
        { cat "$_p.xmllint" >&2; fail "$_p.xml: not valid JUnit"; }
}
runit "$TMPD/a"
runit "$TMPD/b"
runit "$TMPD/c" --source-root "$ROOT/tests"
cd "$ROOT" || exit 1
py '
import json, os, re, sys, xml.etree.ElementTree as ET
root, a, b, c = sys.argv[1:5]
def jsonl(p):
    return [json.loads(l) for l in open(p) if json.loads(l)["type"] == "finding"]
def site(stack):
    for f in stack:
        if f["file"] and f["file"].startswith("tests/outputs/") and "libcudart" not in f["module"]:
            return f["file"], f["line"]
    raise AssertionError(stack)
def check(p, sub):
    s = json.load(open(p + ".sarif"))
    fs = jsonl(p + ".json")
    assert s["version"] == "2.1.0" and len(s["runs"]) == 1
    run = s["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "devcheck"
    kinds = re.findall(r"^DC_KIND\(\w+, (\w+),", open(os.environ["ROOT"] + "/report/kinds.def").read(), re.M)
    assert "framework_device_error" in kinds, kinds      # one rule per kind of report/kinds.def, in its order
    assert [r["id"] for r in rules] == kinds, rules
    for r in rules:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"]
        assert len(r["properties"]["tags"]) < 20
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert base == "file://" + root + "/" + (sub + "/" if sub else ""), base
    def rel(path):
        return path[len(sub) + 1:] if sub else path
    res = run["results"]
    assert len(res) == len(fs) == 2, (len(res), len(fs))
    for r, f in zip(res, fs):
        assert r["ruleId"] == f["kind"] and rules[r["ruleIndex"]]["id"] == f["kind"]
        assert r["level"] == "error"
        assert f["kernel"] in r["message"]["text"] and "cuda:%d" % f["launch"]["device"] in r["message"]["text"]
        loc = r["locations"][0]["physicalLocation"]
        file, line = site(f["launch_stack"])
        assert loc["artifactLocation"] == {"uri": rel(file), "uriBaseId": "SRCROOT"}, (loc, sub, file)
        assert loc["region"]["startLine"] == line
        rl = r["relatedLocations"][0]["physicalLocation"]
        afile, aline = site(f["alloc_stack"])
        assert rl["artifactLocation"]["uri"] == rel(afile) and rl["region"]["startLine"] == aline
        assert r["partialFingerprints"]["devcheckFinding/v1"] == f["fingerprint"]
        assert re.fullmatch("[0-9a-f]{16}", f["fingerprint"])
        assert r["properties"]["processes"][0]["pid"] == f["pid"]
    x = ET.parse(p + ".xml").getroot()
    suite = x.find("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("tests") == "2" and suite.get("failures") == "2"
    names = [t.get("name") for t in cases]
    assert len(set(names)) == 2, names
    for t, f in zip(cases, fs):
        file, line = site(f["launch_stack"])
        assert t.get("classname") == "devcheck." + f["kind"]
        assert f["kernel"] in t.get("name") and t.get("name").endswith(" at %s:%d" % (rel(file), line)), t.get("name")
        fail = t.find("failure")
        assert fail.get("type") == f["kind"] and "launch stack:" in fail.text and "hint:" in fail.text
    return [r["partialFingerprints"]["devcheckFinding/v1"] for r in res]
fa = check(a, "")
fb = check(b, "")
assert fa == fb, (fa, fb)            # stable across runs (addresses differ)
check(c, "tests")
print("sarif and junit fields: ok")
' "$ROOT" "$TMPD/a" "$TMPD/b" "$TMPD/c" || fail "SARIF/JUnit fields"

# a clean run: no results, one passing testcase
run "$TMPD/k" "$DEVCHECK_BIN" --sim 4 --sarif "$TMPD/k.sarif" --junit "$TMPD/k.xml" -- "$OP/outprog" launch 1 1
expect_eq "clean: status" 0 "$(rc_of "$TMPD/k")"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$SCHEMA" "$TMPD/k.sarif" || fail "clean SARIF invalid"
xmllint --noout --schema "$ROOT/tests/schemas/JUnit.xsd" "$TMPD/k.xml" 2>/dev/null || fail "clean JUnit invalid"
expect_eq "clean: results, testcases, failures" "0 1 0" "$(py '
import json, sys, xml.etree.ElementTree as ET
s = json.load(open(sys.argv[1]))
x = ET.parse(sys.argv[2]).getroot().find("testsuite")
print(len(s["runs"][0]["results"]), len(x.findall("testcase")), len(x.findall("testcase/failure")))' "$TMPD/k.sarif" "$TMPD/k.xml")"
echo "sarif_junit: ok"
