#!/bin/sh
# Issue 14, process trees: the wrapper follows its whole tree -- fork+exec,
# posix_spawn, vfork+exec (outprog tree) and Python multiprocessing with fork
# and spawn (mp_tree.py) -- and prints one SUMMARY for the tree, with every
# child's finding in the merged JSON file, each attributed to its own
# process (pid), on its own devices.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$OP/libpylaunch.so" "$DEVCHECK_BIN"
# pairs: the merged findings as "launch<-owner pid-of-its-process"
pairs() {
    py '
import json, sys
pids = set()
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["type"] == "summary":
        print("summary findings=%d processes=%d" % (o["findings"], len(o["processes"])))
        continue
    assert len(o["processes"]) == 1, o["processes"]
    pid = o["processes"][0]["pid"]
    assert pid not in pids
    pids.add(pid)
    print("%d<-%d" % (o["launch"]["device"], o["operand"]["owner_device"]))' "$1"
}

run "$TMPD/t" "$DEVCHECK_BIN" --sim 4 --json "$TMPD/t.json" -- "$OP/outprog" tree
expect_eq "C tree: status" 0 "$(rc_of "$TMPD/t")"
expect_eq "C tree: SUMMARY lines" 1 "$(count_lines 'SUMMARY' "$TMPD/t.err")"
expect_grep '^devcheck: SUMMARY: 4 findings \(4 errors, 0 warnings\) in 1 kernel; 4 launches checked, 0 unchecked .*; 4 processes$' "$TMPD/t.err"
expect_eq "C tree: findings by process" "0<-1
1<-2
2<-3
3<-0
summary findings=4 processes=4" "$(pairs "$TMPD/t.json" | sort)"
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD/t.json" || fail "merged JSON invalid"

# Python multiprocessing, fork and spawn (the interpreter's own children)
PY=$(command -v python3)
run "$TMPD/p" "$DEVCHECK_BIN" --sim 4 --json "$TMPD/p.json" -- "$PY" "$ROOT/tests/outputs/mp_tree.py" "$OP/libpylaunch.so"
expect_eq "python tree: status" 0 "$(rc_of "$TMPD/p")"
expect_eq "python tree: stdout" "mp_tree: done" "$(cat "$TMPD/p.out")"
expect_eq "python tree: SUMMARY lines" 1 "$(count_lines 'SUMMARY' "$TMPD/p.err")"
expect_grep '^devcheck: SUMMARY: 2 findings \(2 errors' "$TMPD/p.err"
expect_eq "python tree: findings by process" "2<-0
3<-1
summary findings=2 processes=2" "$(pairs "$TMPD/p.json" | sort)"
echo "tree: ok"
