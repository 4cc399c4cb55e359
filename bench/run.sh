#!/bin/sh
# Overhead benchmark: the same workload without and with devcheck, side by
# side in one run, reported as ratios (launch-loop time, peak RSS).  Runs on
# the simulated GPUs when no driver is present.  Not a test: it asserts nothing.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
LAUNCHES=${LAUNCHES:-100000}
ALLOCS=${ALLOCS:-20000}
REPEAT=${REPEAT:-3}
prog=$BUILD/bench/launches
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time for peak RSS (apt-get install time)" >&2; exit 1; }
calc() { awk "BEGIN { printf \"%.4f\", $1 }"; }
env_sim="LD_LIBRARY_PATH=$BUILD/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# run LABEL [VAR=VALUE...]: prints "seconds maxrss_kib", the best of REPEAT runs.
run() {
    best=""; rss=""
    i=0
    while [ $i -lt "$REPEAT" ]; do
        out=$(env "$env_sim" "$@" /usr/bin/time -f '%M' "$prog" "$LAUNCHES" "$ALLOCS" 2>"$BUILD/bench/time.err")
        r=$(tail -n 1 "$BUILD/bench/time.err")
        if [ -z "$best" ] || [ "$(calc "$out < $best")" != 0.0000 ]; then best=$out; rss=$r; fi
        i=$((i + 1))
    done
    echo "$best $rss"
}
set -- $(run)
base_t=$1; base_rss=$2
set -- $(run LD_PRELOAD="$BUILD/lib/libdevcheck.so")
dc_t=$1; dc_rss=$2
set -- $(run LD_PRELOAD="$BUILD/lib/libdevcheck.so" DEVCHECK_OPTIONS=mode=off)
off_t=$1
printf 'workload: %s launches (6 operands each), %s live allocations, best of %s\n' "$LAUNCHES" "$ALLOCS" "$REPEAT"
printf 'launch loop: %.4fs without, %.4fs with devcheck, %.4fs with mode=off\n' "$base_t" "$dc_t" "$off_t"
printf 'ratio time devcheck/baseline: %.2f\n' "$(calc "$dc_t / $base_t")"
printf 'ratio time mode=off/baseline: %.2f\n' "$(calc "$off_t / $base_t")"
printf 'ratio peak RSS devcheck/baseline: %.2f (%s KiB vs %s KiB)\n' "$(calc "$dc_rss / $base_rss")" "$dc_rss" "$base_rss"
