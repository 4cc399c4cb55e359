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
line=$(grep -n '^    CUresult r = cuLaunchKernel' "$ROOT/tests/cupti/ctx_destroy.cu" | grep -v sibling | cut -d: -f1)
sline=$(grep -n '// sibling launch' "$ROOT/tests/cupti/ctx_destroy.cu" | cut -d: -f1)
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
    # Another context's end takes nothing of the live ones: neither the
    # buffer in cuda:1's primary context nor cuda:0 -> cuda:1 peer access.
    t=$TMPD/sibling.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$CT/ctx_destroy" sibling
    expect_eq "sibling, backend=$b: exit status" 0 "$(rc_of "$t")"
    expect_grep '^ctx_destroy: sibling, launch 0, sync 0$' "$t.out"
    canon ctx_destroy "$t.json" "$t.canon" "$b"
    expect_findings /dev/stdin "$t.canon" "sibling context destroyed, backend=$b" <<EOT
peer_access severity=warning kernel=touch api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=ctx_destroy.cu:$sline
summary errors=0 warnings=1 launches=1 unchecked=0
EOT
done
echo "ok: a destroyed context's memory is forgotten, and only its own"
