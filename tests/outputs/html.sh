#!/bin/sh
# Issue 14, the HTML report in a real headless browser (Debian's chromium):
# a process tree of two samples (vision_merge: a device_mismatch and
# host<->device copies; pipeline_peer: peer copies and a peer_access
# warning) under the wrapper with --html, and the same merged again by
# devcheck report --html.  The page renders with no console message and no
# script error; every cell of the access and transfer matrices equals the
# merged JSON summary's numbers; the findings shown equal the JSON's; the
# rank/process filter narrows them.  A screenshot is kept in
# build/test-logs/html_report.png.
. "$ROOT/tests/outputs/common.sh"
need "$DEVCHECK_BIN" "$SAMPLES/vision_merge" "$SAMPLES/pipeline_peer"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || fail "chromium missing (Debian's chromium: mk/deps.sh installs it)"
browse() {  # HTML OUT: the DOM after the scripts ran, and the browser's log
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$TMPD/chr" \
        --enable-logging=stderr --v=0 --dump-dom "file://$1" >"$2.dom" 2>"$2.log" || fail "chromium failed on $1"
    expect_no_grep ':CONSOLE' "$2.log"
}
check_page() {  # HTML JSON WHAT
    browse "$1" "$TMPD/page"
    py '
import json, re, sys
from html.parser import HTMLParser
dom, data, what = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
recs = [json.loads(l) for l in open(data)]
summ = [r for r in recs if r["type"] == "summary"][0]
finds = [r for r in recs if r["type"] == "finding"]
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.cells, s.x, s.body, s.fs = {}, {}, {}, 0
    def handle_starttag(s, tag, attrs):
        a = dict(attrs)
        if tag == "body": s.body = a
        c = a.get("class", "")
        if tag == "td" and "cell" in c.split():
            s.cells[(int(a["data-row"]), int(a["data-col"]))] = tuple(int(a[k]) for k in
                ("data-operands", "data-errors", "data-warnings", "data-infos", "data-bytes-migrated"))
        if tag == "td" and "xcell" in c.split():
            s.x[(int(a["data-src"]), int(a["data-dst"]))] = (int(a["data-calls"]), int(a["data-bytes"]))
        if tag == "div" and "f" in c.split(): s.fs += 1
p = P(); p.feed(dom)
assert p.body.get("data-rendered") == "1", (what, p.body)
assert "data-js-error" not in p.body, (what, p.body)
acc = {(c["launch_device"], c["owner"]): (c["operands"], c["errors"], c["warnings"], c["infos"], c["bytes_migrated"])
       for c in summ["access"]}
assert acc, what
for k, v in p.cells.items():
    assert acc.get(k, (0, 0, 0, 0, 0)) == v, (what, k, v, acc.get(k))
assert set(acc) <= set(p.cells), (what, acc, p.cells)
tx = {(c["src"], c["dst"]): (c["calls"], c["bytes"]) for c in summ["transfers"]}
assert tx and any(s >= 0 and d >= 0 for s, d in tx) and any(s < 0 for s, d in tx), (what, tx)
for k, v in p.x.items():
    assert tx.get(k, (0, 0)) == v, (what, k, v, tx.get(k))
assert set(tx) <= set(p.x), what
assert p.fs == len(finds) == summ["findings"], (what, p.fs, len(finds))
kinds = sorted(f["kind"] for f in finds)
assert "device_mismatch" in kinds and "peer_access" in kinds, kinds
print("%s: %d access cells, %d transfer cells, %d findings" % (what, len(p.cells), len(p.x), p.fs))
' "$TMPD/page.dom" "$2" "$3" || fail "$3: the page does not show the JSON's numbers"
}
run "$TMPD/w" "$DEVCHECK_BIN" --sim 4 --html "$TMPD/tree.html" --json "$TMPD/tree.jsonl" -- \
    sh -c '"$1"; "$2"; exit 0' sh "$SAMPLES/vision_merge" "$SAMPLES/pipeline_peer"
expect_eq "wrapper: status" 0 "$(rc_of "$TMPD/w")"
expect_grep '; 2 processes$' "$TMPD/w.err"
expect_no_grep '<(script|link|img|iframe)[^>]+(src|href)=' "$TMPD/tree.html"     # self-contained
check_page "$TMPD/tree.html" "$TMPD/tree.jsonl" "wrapper --html"

run "$TMPD/r" "$DEVCHECK_BIN" report --html "$TMPD/merged.html" --json "$TMPD/merged.jsonl" "$TMPD/tree.jsonl"
expect_eq "report: status" 1 "$(rc_of "$TMPD/r")"
check_page "$TMPD/merged.html" "$TMPD/merged.jsonl" "devcheck report --html"

# the process filter: one process's findings only
py '
import re, sys
html = open(sys.argv[1]).read()
# select the first process in the filter once the page is drawn, then mark the body
html = html.replace("</body>", "<script>var s=document.getElementById(\"proc\");s.selectedIndex=1;s.onchange();"
                    "document.body.setAttribute(\"data-filtered\",document.querySelectorAll(\"div.f\").length);</script></body>")
open(sys.argv[2], "w").write(html)' "$TMPD/tree.html" "$TMPD/filtered.html"
browse "$TMPD/filtered.html" "$TMPD/filt"
expect_eq "filter: findings of the first process" 1 "$(sed -n 's/.*data-filtered="\([0-9]*\)".*/\1/p' "$TMPD/filt.dom" | head -n 1)"

mkdir -p "$BUILD/test-logs"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$TMPD/chr" \
    --hide-scrollbars --window-size=1280,1400 --screenshot="$BUILD/test-logs/html_report.png" "file://$TMPD/tree.html" \
    >/dev/null 2>&1 || fail "no screenshot"
[ -s "$BUILD/test-logs/html_report.png" ] || fail "empty screenshot"
echo "html: ok (screenshot: $BUILD/test-logs/html_report.png)"
