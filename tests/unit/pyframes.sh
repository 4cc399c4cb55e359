#!/bin/sh
# The Python frame reader against each CPython the machine has (pyenv's 3.9
# to 3.13 under /root/.pyenv/versions, or PYFRAMES_PYTHONS="prefix ..."):
# test_pyframes loads the version's libpython, runs pyframes_script.py, and
# every probe's Python frames must be the marked lines, innermost first:
#   1  inner (P1) <- outer (P1-caller) <- <module>, the GIL released (CDLL)
#   2  outer (P2), the GIL held (PyDLL)
#   3  a list comprehension inside a method (3.12+ inlines comprehensions)
#   4  a generator's frame
#   5  a function whose code object was freed before the report: its own name and line
#   6  a thread that released the GIL while the main thread holds it: its
#      frames, no deadlock
# Also: a capture before Py_Initialize has no Python frame, and the native
# stack stops at the interpreter (no libpython frame is printed as native).
# Runs under every sanitizer (the reader reads the interpreter's memory).
set -u
. "$ROOT/tests/lib.sh"
PROG=$BUILD/tests/unit/test_pyframes
SCRIPT=$ROOT/tests/unit/pyframes_script.py
[ -x "$PROG" ] || fail "$PROG not built"
line() { grep -n "# $1\$" "$SCRIPT" | cut -d: -f1; }
P1=$(line P1) P1C=$(line P1-caller) P2=$(line P2) P3=$(line P3) P4=$(line P4) P6=$(line P6)
# the module-level calls
M1=$(grep -n '^outer()$' "$SCRIPT" | cut -d: -f1)
M3=$(grep -n '^Model().forward()$' "$SCRIPT" | cut -d: -f1)
M4=$(grep -n '^next(gen())$' "$SCRIPT" | cut -d: -f1)
prefixes=${PYFRAMES_PYTHONS:-$(ls -d /root/.pyenv/versions/3.9.* /root/.pyenv/versions/3.1[0-3].* 2>/dev/null)}
[ -n "$prefixes" ] || fail "no CPython 3.9-3.13 found (pyenv under /root/.pyenv/versions, or set PYFRAMES_PYTHONS)"
# LeakSanitizer: the interpreter keeps its memory at exit by design.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tested=0
for p in $prefixes; do
    lib=$(ls "$p"/lib/libpython3.*.so.1.0 2>/dev/null | head -n 1)
    [ -n "$lib" ] || { note "$p: no shared libpython; skipped"; continue; }
    v=$(basename "$p")
    out=$TMPD/$v.out
    PYTHONHOME=$p PYTHONDONTWRITEBYTECODE=1 "$PROG" "$lib" "$SCRIPT" >"$out" 2>"$TMPD/$v.err" ||
        { cat "$TMPD/$v.err" >&2; fail "$v: test_pyframes failed"; }
    grep -q '^before' "$out" && fail "$v: Python frames before the interpreter started"
    expect_eq "$v: probe 1 (GIL released)" "1 #0 inner pyframes_script.py:$P1
1 #1 outer pyframes_script.py:$P1C
1 #2 <module> pyframes_script.py:$M1" "$(grep '^1 #[0-2] ' "$out")"
    expect_eq "$v: probe 2 (GIL held)" "2 #0 outer pyframes_script.py:$P2
2 #1 <module> pyframes_script.py:$M1" "$(grep '^2 #[0-1] ' "$out")"
    case $v in
        3.9.*|3.10.*|3.11.*) comp="3 #0 <listcomp> pyframes_script.py:$P3
3 #1 forward pyframes_script.py:$P3" ;;
        *) comp="3 #0 forward pyframes_script.py:$P3
3 #1 <module> pyframes_script.py:$M3" ;;
    esac
    expect_eq "$v: probe 3 (comprehension)" "$comp" "$(grep '^3 #[0-1] ' "$out")"
    expect_eq "$v: probe 4 (generator)" "4 #0 gen pyframes_script.py:$P4
4 #1 <module> pyframes_script.py:$M4" "$(grep '^4 #[0-1] ' "$out")"
    expect_eq "$v: probe 5 (freed code)" "5 #0 f <generated>:2" "$(grep '^5 #0 ' "$out")"
    expect_eq "$v: probe 6 (thread, GIL held elsewhere)" "6 #0 in_thread pyframes_script.py:$P6" \
        "$(grep '^6 #0 ' "$out")"
    grep -q "^6 #1 run threading.py:" "$out" || fail "$v: probe 6 lacks threading's frames: $(grep '^6 ' "$out")"
    tested=$((tested + 1))
done
[ $tested -gt 0 ] || fail "no CPython with a shared libpython"
note "Python frames read correctly in $tested CPython version(s)"
