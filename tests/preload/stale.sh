#!/bin/sh
# The kernel cache is flushed when a context ends (cuCtxDestroy, a primary
# context reset): a function handle the driver hands out again (stale_main.c;
# the sim reuses freed handles, as a driver's allocator may) is described
# afresh.  A: three(int, int, int *) with the handle one(int *) had is checked
# with its own name and layout (its device_mismatch in parameter 2 reported;
# with one's layout nothing was).  B: one with three's old handle is checked
# with its one parameter (three's layout read past its argument array).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/stale_main" "$PT/stale_kernels.cubin" "$SIM_DIR/libcuda.so.1"
for mode in destroy reset; do
    run "$TMPD/plain-$mode" on_sim "$PT/stale_main" $mode "$PT/stale_kernels.cubin"
    expect_eq "$mode without devcheck" "reused: 1 1" "$(cat "$TMPD/plain-$mode.out")"
    run "$TMPD/$mode" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$mode.json" \
        "$PT/stale_main" $mode "$PT/stale_kernels.cubin"
    expect_eq "$mode status" 0 "$(rc_of "$TMPD/$mode")"
    expect_eq "$mode stdout" "reused: 1 1" "$(cat "$TMPD/$mode.out")"
    findings "$TMPD/$mode.json" >"$TMPD/$mode.f"
    sed "s/^/    $mode: /" "$TMPD/$mode.f"
    expect_eq "$mode findings" "device_mismatch kernel=_Z5threeiiPi param=2 launch=0 owner=1 api=cuLaunchKernel
summary errors=1 warnings=0" "$(cat "$TMPD/$mode.f")"
    expect_grep 'SUMMARY: .* 3 launches checked, 0 unchecked' "$TMPD/$mode.err"
done
