#!/bin/sh
# The fuzz corpus replayed (issue 40): every seed and every input that ever
# found a bug (tests/fuzz/corpus/TARGET/) through its target, built without
# libFuzzer with the build's compiler and sanitizer (tests/fuzz/fuzz.mk).
# A target's invariant that fails aborts: the test fails naming the input.
. "$ROOT/tests/lib.sh"
for t in image mangle source json supp options replay dwline elfdw; do
    bin=$BUILD/tests/fuzz/replay_$t
    [ -x "$bin" ] || fail "not built: $bin (run make first)"
    [ -d "$ROOT/tests/fuzz/corpus/$t" ] || fail "no corpus: tests/fuzz/corpus/$t"
    "$bin" "$ROOT/tests/fuzz/corpus/$t" >"$TMPD/$t.out" 2>"$TMPD/$t.err" ||
        { sed 's/^/    > /' "$TMPD/$t.err" >&2; fail "replay_$t: an input broke the target"; }
    n=$(sed -n 's/.*: \([0-9]*\) inputs\{0,1\} replayed$/\1/p' "$TMPD/$t.out")
    [ "${n:-0}" -gt 0 ] || fail "replay_$t: no input replayed"
done
exit 0
