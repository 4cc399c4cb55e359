#!/bin/sh
# dlsym under devcheck: wrappers for hooked cu* names, the real thing for
# others, RTLD_NEXT relative to the caller (tests/preload/dlsym_test.c).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/dlsym_test" "$SIM_DIR/libcuda.so.1"
run "$TMPD/d" under_devcheck "$PT/dlsym_test"
cat "$TMPD/d.err" >&2
expect_eq "dlsym_test status" 0 "$(rc_of "$TMPD/d")"
expect_grep '^dlsym_test: 0 failures$' "$TMPD/d.out"
