#!/bin/sh
# A cross-device launch on the sim is a device_mismatch with the right kernel,
# parameter and devices, through <<<>>> (runtime) and through cuLaunchKernel
# obtained with cuGetProcAddress (driver); with peer access enabled it is not
# an error; a clean program has no findings.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/xdev" "$SIM_DIR/libcuda.so.1"
K=_Z8xdev_addPfPKfi
for mode in runtime driver peer clean; do
    run "$TMPD/$mode" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$mode.json" "$PT/xdev" $mode
    sed "s/^/    $mode> /" "$TMPD/$mode.err"
    expect_eq "xdev $mode status" 0 "$(rc_of "$TMPD/$mode")"
    expect_eq "xdev $mode stdout" "xdev: done" "$(cat "$TMPD/$mode.out")"
    findings "$TMPD/$mode.json" >"$TMPD/$mode.f"
    sed "s/^/    $mode: /" "$TMPD/$mode.f"
done
expect_grep "^device_mismatch kernel=$K param=1 launch=0 owner=1 api=__cudaLaunchKernel\$" "$TMPD/runtime.f"
expect_grep '^summary errors=1 ' "$TMPD/runtime.f"
expect_eq "runtime findings" 2 "$(wc -l <"$TMPD/runtime.f")"
expect_grep "^device_mismatch kernel=$K param=1 launch=0 owner=1 api=cuLaunchKernel\$" "$TMPD/driver.f"
expect_grep '^summary errors=1 ' "$TMPD/driver.f"
expect_eq "driver findings" 2 "$(wc -l <"$TMPD/driver.f")"
expect_no_grep '^device_mismatch' "$TMPD/peer.f"
expect_grep '^summary errors=0 ' "$TMPD/peer.f"
expect_grep "^peer_access kernel=$K param=1 launch=0 owner=1 " "$TMPD/peer.f"
expect_eq "clean findings" "summary errors=0 warnings=0" "$(cat "$TMPD/clean.f")"
