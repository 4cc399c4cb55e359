#!/bin/sh
# Issue 14: every file and the summary are complete when the program is
# killed by a signal it does not catch (outprog term raises SIGTERM after a
# bad launch): the JSON file ends with the summary, the SARIF file is
# valid, the log ends with the SUMMARY line, and the program still dies of
# SIGTERM (status 143 from a shell).  Bare LD_PRELOAD and the wrapper.
# A SIGSEGV (outprog segv): the log and the JSON file complete, nothing
# allocated in the handler (so no SARIF file), and status 139.
. "$ROOT/tests/outputs/common.sh"
need "$OP/outprog" "$DEVCHECK_LIB" "$DEVCHECK_BIN"
check_files() {     # WHAT
    expect_eq "$1: status" 143 "$(rc_of "$TMPD/t")"
    expect_eq "$1: log's last line" 1 "$(tail -n 1 "$TMPD/t.log" | count_lines '^devcheck: SUMMARY: 1 finding' -)"
    expect_eq "$1: JSON" "finding summary" "$(py '
import json, sys
print(" ".join(json.loads(l)["type"] for l in open(sys.argv[1])))' "$TMPD/t.json")"
    python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/tests/schemas/sarif-schema-2.1.0.json" "$TMPD/t.sarif" \
        || fail "$1: SARIF invalid"
    expect_eq "$1: SARIF results" 1 "$(py 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"][0]["results"]))' "$TMPD/t.sarif")"
}
sh -c 'exec env "$@"' sh LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
    DEVCHECK_OPTIONS="log_path=$TMPD/t.log:json_path=$TMPD/t.json:sarif_path=$TMPD/t.sarif" "$OP/outprog" term \
    >"$TMPD/t.out" 2>"$TMPD/t.err"
echo $? >"$TMPD/t.rc"
check_files "preload"
rm -f "$TMPD/t.log" "$TMPD/t.json" "$TMPD/t.sarif"
run "$TMPD/t" "$DEVCHECK_BIN" --sim 4 --log-file "$TMPD/t.log" --json "$TMPD/t.json" --sarif "$TMPD/t.sarif" -- \
    "$OP/outprog" term
check_files "wrapper"
# a synchronous fault
sh -c 'exec env "$@"' sh LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
    DEVCHECK_OPTIONS="log_path=$TMPD/v.log:json_path=$TMPD/v.json:sarif_path=$TMPD/v.sarif" "$OP/outprog" segv \
    >"$TMPD/v.out" 2>"$TMPD/v.err"
echo $? >"$TMPD/v.rc"
case $SANITIZE in
    address|thread|undefined|address,undefined) note "SIGSEGV under a sanitizer: the sanitizer's own handler reports it" ;;
    *)
        expect_eq "segv: status" 139 "$(rc_of "$TMPD/v")"
        expect_eq "segv: log's last line" 1 "$(tail -n 1 "$TMPD/v.log" | count_lines '^devcheck: SUMMARY: 1 finding' -)"
        expect_eq "segv: JSON" "finding summary" "$(py '
import json, sys
print(" ".join(json.loads(l)["type"] for l in open(sys.argv[1])))' "$TMPD/v.json")"
        [ ! -e "$TMPD/v.sarif" ] || fail "segv: a SARIF file was written from the fault's handler" ;;
esac
echo "signal: ok"
