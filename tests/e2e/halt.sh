#!/bin/sh
# halt_on_error=1 (`--halt-on-error`, `--halt abort|trap`): each buggy sample
# stops at its first error finding (the faulting launch, before the program
# reaches its failing call), after the text report with its SUMMARY line and
# the JSON Lines file (every line valid, the summary last) are complete on
# disk: with SIGABRT (exit status 134 from the shell) by default, with
# SIGTRAP (133) for halt=trap.  With --sync too, it stops at the launch
# check's finding, before any async_error.  An error past print_limit, not
# printed, stops it too.  A clean run is not stopped.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}handle_abort=0"
failed=""
for s in $BUGGY_SAMPLES; do
    (
        exp=$E2E/expected/$s.txt
        need "$SAMPLES/$s" "$exp"
        for how in abort trap sync; do
            t=$TMPD/$s.$how
            case $how in
                abort) want=134; set -- --halt-on-error ;;
                trap)  want=133; set -- --halt-on-error --halt trap ;;
                sync)  want=134; set -- --halt-on-error --sync ;;
            esac
            # the shell reports death by signal N as 128+N
            sh -c '"$@" >"$0.out" 2>"$0.err"' "$t" "$DEVCHECK_BIN" --sim 4 "$@" --json "$t.json" \
                --log-file "$t.log" -- "$SAMPLES/$s"
            expect_eq "$s --halt-on-error ($how): exit status" "$want" "$?"
            expect_no_grep "^$s: (OK|FAILED)" "$t.out"
            canon "$s" "$t.json" "$t.canon"
            expect_findings "$exp" "$t.canon" "$s halted ($how)"
            expect_grep "^==devcheck== ERROR: " "$t.log"
            expect_grep "^devcheck: halt_on_error: stopping at the first error \\(halt=${how%sync}" "$t.log"
            expect_grep '^devcheck: SUMMARY: 1 finding \(1 error, 0 warnings\)' "$t.log"
            expect_eq "$s ($how): the SUMMARY is the log's last line" 1 "$(tail -n 1 "$t.log" | grep -c '^devcheck: SUMMARY: ')"
        done
    ) || failed="$failed $s"
done
# Bare LD_PRELOAD spelling, trap.
(
    t=$TMPD/preload
    sh -c '"$@" >"$0.out" 2>"$0.err"' "$t" env LD_LIBRARY_PATH="$SIM_DIR" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
        DEVCHECK_OPTIONS="halt_on_error=1:halt=trap:json_path=$t.json" "$SAMPLES/vision_merge"
    expect_eq "vision_merge, DEVCHECK_OPTIONS halt=trap: exit status" 133 "$?"
    canon vision_merge "$t.json" "$t.canon"
    expect_findings "$E2E/expected/vision_merge.txt" "$t.canon" "vision_merge halted (LD_PRELOAD)"
    expect_grep '^devcheck: SUMMARY: ' "$t.err"
) || failed="$failed LD_PRELOAD"
# The first error is past print_limit and there is no JSON file: it is not
# printed, and still stops the program (modes_prog late: a warning -- pinned
# host memory, reported under --host-memory warn --, then the error).
(
    t=$TMPD/late
    PROG=$BUILD/tests/e2e/modes_prog
    need "$PROG"
    sh -c '"$@" >"$0.out" 2>"$0.err"' "$t" "$DEVCHECK_BIN" --sim 4 --halt-on-error --print-limit 1 \
        --host-memory warn --log-file "$t.log" -- "$PROG" late
    expect_eq "modes_prog late --halt-on-error --print-limit 1: exit status" 134 "$?"
    expect_no_grep '^modes_(prog|late)' "$t.out"
    expect_grep '^==devcheck== WARNING: host_memory: ' "$t.log"
    expect_no_grep '^==devcheck== ERROR: ' "$t.log"
    expect_eq "modes_prog late: the SUMMARY is the log's last line" 1 \
        "$(tail -n 1 "$t.log" | grep -c '^devcheck: SUMMARY: 2 findings (1 error, 1 warning)')"
) || failed="$failed print_limit"
# Nothing to stop for.
(
    t=$TMPD/clean
    run "$t" "$DEVCHECK_BIN" --sim 4 --halt-on-error --halt trap --json "$t.json" -- "$SAMPLES/vision_merge_fixed"
    expect_eq "vision_merge_fixed --halt-on-error: exit status" 0 "$(rc_of "$t")"
    expect_grep '^vision_merge: OK ' "$t.out"
) || failed="$failed clean"
[ -z "$failed" ] || fail "halt_on_error wrong for:$failed"
echo "ok: halt_on_error stops at the first error with the reports complete"
