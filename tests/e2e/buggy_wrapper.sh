#!/bin/sh
# The same as buggy_preload.sh through the wrapper:
# `devcheck --sim 4 --json FILE -- sample` yields exactly the expected
# findings, and the program's own exit status is kept; three ways
# (--backend both|interpose|cupti).
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
failed=""
for b in $BACKENDS; do
    for s in $BUGGY_SAMPLES; do
        (   # a subshell: one failing sample does not hide the others
            exp=$E2E/expected/$s.txt
            need "$SAMPLES/$s" "$exp"
            t=$TMPD/$s.$b
            run "$t" "$DEVCHECK_BIN" --sim 4 --backend "$b" --json "$t.json" -- "$SAMPLES/$s"
            canon "$s" "$t.json" "$t.canon" "$b"
            expect_findings "$exp" "$t.canon" "$s through the wrapper, --backend $b"
            expect_eq "$s through the wrapper, --backend $b: the program's exit status" 1 "$(rc_of "$t")"
            expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$t.out"
            expect_grep '^devcheck: SUMMARY: ' "$t.err"
        ) || failed="$failed $s(--backend $b)"
    done
done
[ -z "$failed" ] || fail "wrong findings for:$failed"
echo "ok: buggy samples through the wrapper"
