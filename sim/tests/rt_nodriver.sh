#!/bin/sh
# Runtime test: without libcuda.so.1 the runtime reports
# cudaErrorInsufficientDriver (driver version 0, success); with no devices,
# cudaErrorNoDevice.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
SIMCUDA_DEVICES=0 rt_run rt_status
expect_grep '^count cudaErrorNoDevice 0 .* malloc cudaErrorNoDevice$' "$TMPD/rt_status.out"
if /sbin/ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    note "a system libcuda.so.1 exists: skipping the no-driver case"
    exit 0
fi
mkdir -p "$TMPD/lib"
cp "$SIM_DIR/libcudart.so.13" "$TMPD/lib/"
env LD_LIBRARY_PATH="$TMPD/lib" ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} \
    "$RT_BIN/rt_status" >"$TMPD/nodrv.out" 2>&1 || fail "rt_status exited $?"
expect_grep '^count cudaErrorInsufficientDriver 0 driver cudaSuccess 0 malloc cudaErrorInsufficientDriver$' "$TMPD/nodrv.out"
