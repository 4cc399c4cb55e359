#!/bin/sh
# CUDA called from another library's constructor (libctor.so, which may run
# before libdevcheck.so's own constructor): devcheck initialises lazily, sees
# the allocations and reports the cross-device launch made there.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/ctor_main" "$SIM_DIR/libcuda.so.1"
run "$TMPD/c" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/c.json" "$PT/ctor_main"
cat "$TMPD/c.err" >&2
expect_eq "status" 0 "$(rc_of "$TMPD/c")"
expect_grep '^ctor: 0$' "$TMPD/c.out"
findings "$TMPD/c.json" >"$TMPD/c.f"
cat "$TMPD/c.f"
expect_grep '^device_mismatch kernel=_Z11ctor_kernelPfPKf param=1 launch=0 owner=1 api=__cudaLaunchKernel$' "$TMPD/c.f"
expect_grep '^summary errors=1 ' "$TMPD/c.f"
