#!/bin/sh
# Test runner: runs each test given as an argument (an executable: a compiled
# test program or a shell script), each with a time limit, its output kept in
# $BUILD/test-logs/.  A test passes when it exits 0.  TEST_JOBS=N runs N tests
# at once (each test keeps its files in its own mktemp directory, tests/lib.sh);
# the results are printed in the order given, each with its seconds.  The last
# line printed is `N passed, N failed`; the exit status is non-zero when any
# test failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export ROOT BUILD
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export SANITIZE=${SANITIZE:-}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
TEST_JOBS=${TEST_JOBS:-1}
logs=$BUILD/test-logs
export TEST_TIMEOUT logs
# name_of TEST: its log's name under $logs (the path, build dir dropped, / as _)
name_of() { echo "$1" | sed "s|^$BUILD/||; s|^build[^/]*/||; s|/|_|g"; }

# one TEST: runs it, leaving its exit status and seconds in $logs/NAME.rc.
if [ "${1:-}" = --one ]; then
    t=$2
    case $t in /*) path=$t ;; *) path=$ROOT/$t ;; esac
    name=$(name_of "$t")
    log=$logs/$name.log
    start=$(date +%s)
    if [ ! -x "$path" ]; then
        echo "missing test executable: $path" >"$log"; rc=127
    else
        (cd "$ROOT" && timeout -k 10 "$TEST_TIMEOUT" "$path") >"$log" 2>&1 </dev/null
        rc=$?
    fi
    echo "$rc $(($(date +%s) - start))" >"$logs/$name.rc"
    exit 0
fi

rm -rf "$logs"; mkdir -p "$logs"
# python3, asked once: the interpreter PATH's python3 runs.  A version
# manager's shim (pyenv's: bash and a few processes, ~0.1 s of CPU each call)
# would otherwise run for each of the thousands of python3 calls the tests
# make.  A script, not a link: a virtualenv's python finds its pyvenv.cfg
# beside the path it is run by.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
    mkdir -p "$logs/.bin"
    printf '#!/bin/sh\nexec "%s" "$@"\n' "$py" >"$logs/.bin/python3"
    chmod +x "$logs/.bin/python3"
    PATH=$logs/.bin:$PATH; export PATH
fi
case $TEST_JOBS in ''|*[!0-9]*|0) echo "run.sh: TEST_JOBS must be a positive number (got '$TEST_JOBS')" >&2; exit 2 ;; esac
# TEST_JOBS=1: each result as it comes.  More: all run first, then the
# results; a script with the line `# run.sh: alone` (it moves the build tree
# aside, or runs make in it) runs after the others, by itself.  The tests
# TEST_SERIAL names (the Python clients', which share Triton's and torch's
# build caches: the Makefile's `test`) run one at a time, in a lane of their
# own beside TEST_JOBS - 1 lanes of the others.
alone() { case $1 in *.sh) grep -q '^# run.sh: alone$' "$ROOT/$1" 2>/dev/null ;; *) false ;; esac; }
serial() { case " ${TEST_SERIAL:-} " in *" $1 "*) true ;; *) false ;; esac; }
if [ $# -gt 0 ] && [ "$TEST_JOBS" -gt 1 ]; then
    lanes=$TEST_JOBS
    for t in "$@"; do alone "$t" || ! serial "$t" || echo "$t"; done >"$logs/.serial"
    if [ -s "$logs/.serial" ]; then
        lanes=$((TEST_JOBS - 1))
        while read -r t; do sh "$0" --one "$t" </dev/null; done <"$logs/.serial" &
    fi
    for t in "$@"; do alone "$t" || serial "$t" || printf '%s\n' "$t"; done | xargs -r -P "$lanes" -n 1 sh "$0" --one
    wait
    for t in "$@"; do ! alone "$t" || sh "$0" --one "$t"; done
fi
passed=0; failed=0; failures=""
for t in "$@"; do
    [ "$TEST_JOBS" -eq 1 ] && sh "$0" --one "$t"
    name=$(name_of "$t")
    log=$logs/$name.log
    rc=125; secs=0
    [ -f "$logs/$name.rc" ] && read -r rc secs <"$logs/$name.rc"
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1)); echo "PASS  $t (${secs} s)"
    else
        failed=$((failed + 1)); failures="$failures $t"
        echo "FAIL  $t (exit $rc; ${secs} s; log: $log)"
        tail -n 25 "$log" | sed 's/^/    | /'
    fi
done
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
