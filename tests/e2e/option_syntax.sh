#!/bin/sh
# One option syntax (issue 41): every option takes --key=VALUE and --key
# VALUE; a bool option alone means 1 and takes the next word only when it is
# a true/false word, so it never swallows the program; a value the option
# does not take is an error naming it (exit 2), never a program to run.
# `devcheck report` reads its options the same way between its files.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN"
# the issue's traps: `--framework-errors 0 -- prog` ran `0` (exit 127);
# `--halt-on-error false prog` ran /bin/false
run "$TMPD/a" "$DEVCHECK_BIN" --sim 2 --framework-errors 0 -- sh -c 'echo ran; exit 3'
expect_eq "--framework-errors 0 --: the program's status" 3 "$(rc_of "$TMPD/a")"
expect_grep '^ran$' "$TMPD/a.out"
run "$TMPD/b" "$DEVCHECK_BIN" --sim 2 --halt-on-error false sh -c 'echo ran; exit 4'
expect_eq "--halt-on-error false prog: the program's status" 4 "$(rc_of "$TMPD/b")"
expect_grep '^ran$' "$TMPD/b.out"
run "$TMPD/c" "$DEVCHECK_BIN" --sim=2 --sync sh -c 'echo ran; exit 5'
expect_eq "--sync prog: the bool alone, the program runs" 5 "$(rc_of "$TMPD/c")"
run "$TMPD/d" "$DEVCHECK_BIN" --sim python x.py
expect_eq "--sim python: a bad value is exit 2" 2 "$(rc_of "$TMPD/d")"
expect_grep "option 'sim': invalid value 'python'" "$TMPD/d.err"
run "$TMPD/e" "$DEVCHECK_BIN" --json --sync sh -c 'exit 0'
expect_eq "--json --sync: a missing value is exit 2" 2 "$(rc_of "$TMPD/e")"
expect_grep "option '--json' needs a value" "$TMPD/e.err"
# devcheck report: a bool's value between the files, and a file after a bool
printf '%s\n' '{"type":"summary","pid":1,"rank":null,"host":"h","findings":0}' > "$TMPD/r.json"
run "$TMPD/f" "$DEVCHECK_BIN" report --verbosity 1 --gen-suppressions false "$TMPD/r.json" --sync "$TMPD/r.json"
expect_eq "report: options between files" 0 "$(rc_of "$TMPD/f")"
expect_no_grep "cannot read" "$TMPD/f.err"
exit 0
