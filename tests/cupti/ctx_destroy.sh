#!/bin/sh
# A destroyed context drops its allocations, on both detection paths
# (ctx_destroy.cu): with the context kept, the launch on cuda:0 with cuda:1's
# memory is a device_mismatch; with it destroyed, there is none.  The same
# with backend=interpose (the cuCtxDestroy hook), backend=cupti (CUPTI's
# CONTEXT_DESTROY_STARTING) and backend=both.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
need "$DEVCHECK_LIB" "$CT/ctx_destroy" "$SIM_DIR/libcuda.so.1" "$SIM_DIR/libcupti.so.13"
line=$(grep -n 'CUresult r = cuLaunchKernel' "$ROOT/tests/cupti/ctx_destroy.cu" | cut -d: -f1)
for b in $BACKENDS; do
    for how in kept destroy; do
        t=$TMPD/$how.$b
        run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/ctx_destroy" $how
        expect_eq "$how, backend=$b: exit status" 0 "$(rc_of "$t")"
        expect_grep '^ctx_destroy: (kept|destroyed), launch ' "$t.out"
        canon ctx_destroy "$t.json" "$t.canon" "$b"
    done
    expect_grep "^device_mismatch severity=error kernel=touch api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=ctx_destroy.cu:$line\$" \
        "$TMPD/kept.$b.canon"
    expect_no_grep '^device_mismatch ' "$TMPD/destroy.$b.canon"
done
echo "ok: a destroyed context's memory is forgotten"
