#!/bin/sh
# `make bench`'s torch part (bench/torch.sh) runs at a small size (20
# iterations per section; none, preload, wrapper; every loop, issue 38's
# converting copy_ and its legal peer twin included: their first peer
# warning's report names libtorch_cpu frames, +6.6 s of CPU under callgrind
# when libdw walked its symbol table for each, none measurable since
# report/symindex.c: 145.4 s with them, 146.9 s without, the loaded machine):
# each loop's row and the four PASS/FAIL budget lines are printed.  Not
# a timed test: the verdicts are not asserted (instruction counts of 20
# iterations are noisy).
. "$ROOT/tests/lib.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind is not installed (mk/deps.sh installs it)"; exit 0; }
need_pyenv
[ -e "$BUILD/bench/libcgmark.so" ] || fail "not built: $BUILD/bench/libcgmark.so"
BUILD=$BUILD N=20 SECTIONS="add torch_error py_error copy copy_peer" CONFIGS="none preload wrapper" OUT=$TMPD/out PY=$PY sh "$ROOT/bench/torch.sh" >"$TMPD/table" 2>"$TMPD/err" ||
    { cat "$TMPD/err" >&2; fail "bench/torch.sh failed"; }
cat "$TMPD/table"
expect_grep "^instructions per iteration +none +preload +wrapper$" "$TMPD/table"
for row in "x.add_\(1\), launch-bound" "caught torch error \(not device\)" "caught Python KeyError" \
           "copy_ converting, clean" "the same, legal peer \(warning\)"; do
    expect_grep "^$row +[0-9]+( +\+-?[0-9]+){2}$" "$TMPD/table"
done
expect_grep '^(PASS|FAIL)  wrapper on a launch-bound torch loop \(x.add_\(1\)\): x[0-9.]+ the instructions of LD_PRELOAD alone \([0-9]+ vs [0-9]+ per launch\) <= 1.03x$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  a caught torch error \(not a device error\) in a loop: x[0-9.]+ the instructions without devcheck \(worst: (preload|wrapper); [0-9]+ vs [0-9]+ per iteration\) <= 1.03x$' "$TMPD/table"
expect_grep '^(PASS|FAIL)  a caught Python exception in a loop: x[0-9.]+' "$TMPD/table"
expect_grep '^(PASS|FAIL)  torch copy_ with legal peer traffic \(a peer warning, repeated\): x[0-9.]+ the instructions of the copy treated as clean \(worst: (preload|wrapper); ' "$TMPD/table"
expect_grep '^[0-9]+ torch budgets failed$' "$TMPD/table"
echo "ok: bench/torch.sh prints every figure and a verdict per budget"
