#!/bin/sh
# mk/pyenv.sh: makes a virtualenv once, outside the clone (DEVCHECK_CACHE),
# keyed by the requirements; a second run reuses it without installing; a
# half-made one (no completion mark) is made again; a failed install is one
# line naming its log, exit status 1.  Run on a requirements file that needs
# no download (empty, then a local path that does not exist); the real one
# is checked to be complete and importable.
. "$ROOT/tests/lib.sh"
cache=$TMPD/cache
req=$TMPD/req.txt
echo "# nothing to install" >"$req"
DEVCHECK_CACHE=$cache sh "$ROOT/mk/pyenv.sh" "$req" >"$TMPD/p1" 2>"$TMPD/e1" || { cat "$TMPD/e1" >&2; fail "first run"; }
venv=$(cat "$TMPD/p1")
case $venv in "$cache"/pyenv-*) ;; *) fail "venv not in DEVCHECK_CACHE: $venv" ;; esac
[ -x "$venv/bin/python" ] && [ -f "$venv/.devcheck-complete" ] || fail "no complete venv at $venv"
expect_grep '^devcheck: making the Python client environment ' "$TMPD/e1"
# reused: same path, nothing said, nothing made again
touch -d '2000-01-01' "$venv/.devcheck-complete"
DEVCHECK_CACHE=$cache sh "$ROOT/mk/pyenv.sh" "$req" >"$TMPD/p2" 2>"$TMPD/e2" || fail "second run"
expect_eq "second run: path" "$venv" "$(cat "$TMPD/p2")"
[ ! -s "$TMPD/e2" ] || { cat "$TMPD/e2" >&2; fail "second run made it again"; }
expect_eq "second run: untouched" 2000 "$(date -r "$venv/.devcheck-complete" +%Y)"
# another requirements file: another venv
echo "# another" >>"$req"
DEVCHECK_CACHE=$cache sh "$ROOT/mk/pyenv.sh" "$req" >"$TMPD/p3" 2>/dev/null || fail "third run"
[ "$(cat "$TMPD/p3")" != "$venv" ] || fail "a changed requirements file reused the old venv"
venv=$(cat "$TMPD/p3")
# half-made (interrupted install): made again
rm "$venv/.devcheck-complete"
touch "$venv/leftover"
DEVCHECK_CACHE=$cache sh "$ROOT/mk/pyenv.sh" "$req" >"$TMPD/p4" 2>"$TMPD/e4" || fail "after an interrupted install"
expect_eq "remade: path" "$venv" "$(cat "$TMPD/p4")"
expect_grep '^devcheck: making the Python client environment ' "$TMPD/e4"
[ ! -e "$venv/leftover" ] && [ -f "$venv/.devcheck-complete" ] || fail "the half-made venv was not made anew"
# a failing install: one line naming the log, status 1
echo "$TMPD/no-such-package-dir" >"$TMPD/bad.txt"
DEVCHECK_CACHE=$cache sh "$ROOT/mk/pyenv.sh" "$TMPD/bad.txt" >"$TMPD/p5" 2>"$TMPD/e5"
expect_eq "failed install: status" 1 "$?"
expect_eq "failed install: lines" 1 "$(grep -c 'cannot make the Python client environment' "$TMPD/e5")"
expect_grep 'installing the pinned packages failed \(log: .*pyenv-.*\.log\)$' "$TMPD/e5"
[ ! -s "$TMPD/p5" ] || fail "a failed install printed a path"
# the project's own: complete, outside the clone, importable
need_pyenv
case $PYENV in "$ROOT"/*) fail "the client venv is inside the clone: $PYENV" ;; esac
[ -f "$PYENV/.devcheck-complete" ] || fail "the client venv is not complete"
"$PY" -c 'import torch, triton, numba.cuda, cuda.bindings.driver, cuda.core' || fail "the clients do not import"
