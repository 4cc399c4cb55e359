#!/bin/sh
# Drivers without cuFuncGetParamInfo / cuKernelGetParamInfo (before 12.4;
# R535 is 12.2): devcheck reads the layouts from the kernel images itself.
#  1. The end-to-end suite again, with those entry points hidden
#     (SIMCUDA_HIDE): every test passes as it asserts -- the same findings,
#     every launch checked (the expected files say unchecked=0), the modes
#     (under a sanitizer: the tests of the findings only).
#  2. The driver-API programs as driver 12.2 (SIMCUDA_DRIVER_VERSION=12020:
#     no cuFuncGetParamInfo, no cuFuncGetName either): driver_api's expected
#     findings on each backend, driver_api_fixed clean, mode=migrate running it
#     to its result; the line before the summary says layouts come from the
#     images only.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_LIB" "$SAMPLES/driver_api" "$SAMPLES/driver_api_fixed"

failed=""
suite="samples_sim buggy_preload buggy_wrapper fixed_clean peer_pipeline transparent alloc_sites migrate
       migrate_fallback migrate_threads sync halt unseen_memory"
# under a sanitizer (every C test runs under three): the findings' tests only
[ -n "$SANITIZE" ] && suite="buggy_preload fixed_clean peer_pipeline unseen_memory"
for t in $suite; do
    if ! SIMCUDA_HIDE=cuFuncGetParamInfo,cuKernelGetParamInfo sh "$E2E/$t.sh" >"$TMPD/$t.log" 2>&1; then
        sed 's/^/    | /' "$TMPD/$t.log" | tail -n 20 >&2
        failed="$failed $t"
    fi
done
[ -z "$failed" ] || fail "with cuFuncGetParamInfo/cuKernelGetParamInfo hidden:$failed"

export SIMCUDA_DRIVER_VERSION=12020
for b in $BACKENDS; do
    t=$TMPD/driver_api.12020.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/driver_api"
    canon driver_api "$t.json" "$t.canon" "$b"
    expect_findings "$E2E/expected/driver_api.txt" "$t.canon" "driver_api as driver 12.2, backend=$b"
    expect_grep '^devcheck: driver 12\.2: parameter layouts from the kernel images devcheck reads only' "$t.err"
    expect_grep '"driver_version":12020,"param_layouts":"images"' "$t.json"
    t=$TMPD/driver_api_fixed.12020.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/driver_api_fixed"
    canon driver_api_fixed "$t.json" "$t.canon" "$b"
    expect_clean "driver_api_fixed as driver 12.2, backend=$b" "$t.canon"
    expect_eq "driver_api_fixed as driver 12.2, backend=$b: exit status" 0 "$(rc_of "$t")"
done
t=$TMPD/driver_api.12020.migrate
run "$t" under_devcheck env DEVCHECK_OPTIONS="mode=migrate:json_path=$t.json" "$SAMPLES/driver_api"
expect_eq "driver_api as driver 12.2, mode=migrate: exit status" 0 "$(rc_of "$t")"
expect_grep '^driver_api: OK ' "$t.out"
expect_grep '"action":"migrated"' "$t.json"
echo "ok: layouts from devcheck's own image reader"
