#!/bin/sh
# Test runner: runs each test given as an argument (an executable: a compiled
# test program or a shell script), each with a time limit, its output kept in
# $BUILD/test-logs/.  A test passes when it exits 0.  The last line printed is
# `N passed, N failed`; the exit status is non-zero when any test failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export ROOT BUILD
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export SANITIZE=${SANITIZE:-}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
logs=$BUILD/test-logs
rm -rf "$logs"; mkdir -p "$logs"
passed=0; failed=0; failures=""
for t in "$@"; do
    case $t in /*) path=$t ;; *) path=$ROOT/$t ;; esac
    name=$(echo "$t" | sed "s|^$BUILD/||; s|^build[^/]*/||; s|/|_|g")
    log=$logs/$name.log
    if [ ! -x "$path" ]; then
        echo "missing test executable: $path" >"$log"; rc=127
    else
        (cd "$ROOT" && timeout -k 10 "$TEST_TIMEOUT" "$path") >"$log" 2>&1 </dev/null
        rc=$?
    fi
    if [ $rc -eq 0 ]; then
        passed=$((passed + 1)); echo "PASS  $t"
    else
        failed=$((failed + 1)); failures="$failures $t"
        echo "FAIL  $t (exit $rc; log: $log)"
        tail -n 25 "$log" | sed 's/^/    | /'
    fi
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
