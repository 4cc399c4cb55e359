#!/bin/sh
# Issue 11 #2: devcheck never writes into the program's own file.  outprog
# closefds launches (devcheck opens its log and JSON files), closes every fd
# from 3 up, opens its own file (fd 3) and makes a second bad launch: its
# file holds only its own line, and devcheck's files hold both findings
# (devcheck noticed its fd was gone and opened its path again, appending).
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_LIB"
run "$TMPD/c" under_devcheck env DEVCHECK_OPTIONS="log_path=$TMPD/dc.log:json_path=$TMPD/dc.json" \
    "$OP/outprog" closefds "$TMPD/own.txt"
expect_eq "status" 0 "$(rc_of "$TMPD/c")"
expect_eq "stdout" "outprog: closefds done" "$(cat "$TMPD/c.out")"
expect_eq "the program's own file" "mine" "$(cat "$TMPD/own.txt")"
expect_eq "findings in the JSON file" "device_mismatch _Z7out_addPfPKfi
device_mismatch _Z9out_scalePfPKfi
summary" "$(py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    print(o["type"] == "summary" and "summary" or o["kind"] + " " + o["kernel_mangled"])' "$TMPD/dc.json")"
expect_eq "reports in the log" 2 "$(count_lines '^==devcheck== ERROR: device_mismatch' "$TMPD/dc.log")"
expect_grep '^devcheck: SUMMARY: 2 findings' "$TMPD/dc.log"
echo "closefds: ok"
