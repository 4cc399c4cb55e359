#!/bin/sh
# make fuzz: each target in turn (never two at once: the machine is shared),
# niced, FUZZ_TIME seconds each, on its working corpus
# ($BUILD/fuzz/corpus/T, seeded from tests/fuzz/corpus/T).  Prints per
# target the executions and the coverage libFuzzer reached; exits 1 when a
# target found something (its input: $BUILD/fuzz/artifacts/T-*).
# Usage: BUILD=build FUZZ_TIME=180 sh tests/fuzz/run.sh TARGET...
set -u
BUILD=${BUILD:-build}
FUZZ_TIME=${FUZZ_TIME:-180}
status=0
mkdir -p "$BUILD/fuzz/artifacts"
for t in "$@"; do
    mkdir -p "$BUILD/fuzz/corpus/$t"
    log=$BUILD/fuzz/$t.log
    # -timeout: one input over 10 s is a finding (a hang); -rss_limit_mb: 2 GiB
    start=$(date +%s)
    nice -n 10 "$BUILD/fuzz/fuzz_$t" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$BUILD/fuzz/artifacts/$t-" \
        "$BUILD/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(grep -Eo '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')   # stopped by a finding
    cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
    corpus=$(ls "$BUILD/fuzz/corpus/$t" | wc -l)
    echo "fuzz $t: ${secs}s, ${execs:-?} executions, ${cov:-no coverage line}, corpus $corpus; exit $rc (log: $log)"
    if [ "$rc" -ne 0 ]; then
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*fuzz invariant failed|artifact_prefix|Test unit written)' "$log" | head -n 8
        status=1
    fi
done
exit $status
