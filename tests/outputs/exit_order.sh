#!/bin/sh
# Issue 11 #7, exit order: a finding made in a shared library's destructor
# (libdtorlib.so launches after main returned) is reported before the
# SUMMARY, counted in it and written to the JSON file; with error_exitcode
# the library's destructor still runs (devcheck ends the process only after
# every destructor).  Bare LD_PRELOAD and the wrapper.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_LIB" "$DEVCHECK_BIN"
check_run() {   # WHAT EXPECTED_STATUS
    expect_eq "$1: status" "$2" "$(rc_of "$TMPD/x")"
    expect_eq "$1: stdout" "outprog: main done
outprog: dtor done" "$(cat "$TMPD/x.out")"
    expect_grep '^dtorlib: destructor ran$' "$TMPD/x.err"
    expect_grep '^==devcheck== ERROR: device_mismatch: kernel dtor_kernel' "$TMPD/x.log"
    expect_eq "$1: the log's last line" 1 "$(tail -n 1 "$TMPD/x.log" | count_lines '^devcheck: SUMMARY: 1 finding \(1 error' -)"
    expect_eq "$1: JSON" "finding _Z11dtor_kernelPfPKfi
summary 1" "$(py '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    print(o["type"], o["kernel_mangled"] if o["type"] == "finding" else o["errors"])' "$TMPD/x.json")"
}
run "$TMPD/x" under_devcheck env DEVCHECK_OPTIONS="log_path=$TMPD/x.log:json_path=$TMPD/x.json" "$OP/outprog" dtor
check_run "preload" 0
run "$TMPD/x" under_devcheck env DEVCHECK_OPTIONS="log_path=$TMPD/x.log:json_path=$TMPD/x.json:error_exitcode=9" \
    "$OP/outprog" dtor
check_run "preload, error_exitcode" 9
run "$TMPD/x" "$DEVCHECK_BIN" --sim 4 --log-file "$TMPD/x.log" --json "$TMPD/x.json" --error-exitcode 9 -- \
    "$OP/outprog" dtor
check_run "wrapper, error_exitcode" 9
echo "exit_order: ok"
