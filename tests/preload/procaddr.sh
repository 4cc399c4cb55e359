#!/bin/sh
# cuGetProcAddress(_v2) under devcheck hands back the wrappers of the _v2 and
# _ptsz variants the driver returns (tests/preload/procaddr.c, on the sim).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/procaddr" "$SIM_DIR/libcuda.so.1"
run "$TMPD/p" under_devcheck "$PT/procaddr"
cat "$TMPD/p.err" >&2
expect_eq "procaddr status" 0 "$(rc_of "$TMPD/p")"
expect_grep '^procaddr: 0 failures$' "$TMPD/p.out"
