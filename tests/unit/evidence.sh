#!/bin/sh
# Kernel evidence and word classes: test_evidence on the kernel images nvcc
# and ptxas made for it (tests/unit.mk), with fuzzed names and images.
. "$ROOT/tests/lib.sh"
bin=$BUILD/tests/unit/test_evidence
[ -x "$bin" ] || fail "missing $bin (make $bin)"
"$bin" "$BUILD/tests/unit/evidence" "$TMPD/out" 20000 || fail "test_evidence failed"
echo "evidence: ok"
