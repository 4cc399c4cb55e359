#!/bin/sh
# Required and optional hooks, on a stand-in driver that has only the entry
# points devcheck requires: a missing optional entry point is never called
# (its hook answers CUDA_ERROR_NOT_FOUND) while devcheck stays active; a
# driver lacking a required one gets one line and pure pass-through.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/optional" "$PT/fakedrv/libcuda.so.1" "$PT/fakedrv_lacking/libcuda.so.1"
NOT_FOUND=$(grep -o 'CUDA_ERROR_NOT_FOUND *= *[0-9]*' "$CUDA_HOME/include/cuda.h" | grep -o '[0-9]*$')
run "$TMPD/o" env LD_LIBRARY_PATH="$PT/fakedrv" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
    DEVCHECK_OPTIONS=verbosity=1 "$PT/optional"
cat "$TMPD/o.err" >&2
expect_eq "status" 0 "$(rc_of "$TMPD/o")"
expect_eq "stdout" "optional: async=$NOT_FOUND alloc=999" "$(cat "$TMPD/o.out")"
expect_grep 'devcheck: driver .*fakedrv/libcuda\.so\.1: [0-9]+ of [0-9]+ hooked driver entry points present' "$TMPD/o.err"
expect_grep 'SUMMARY' "$TMPD/o.err"                          # active
run "$TMPD/l" env LD_LIBRARY_PATH="$PT/fakedrv_lacking" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" \
    "$PT/optional"
cat "$TMPD/l.err" >&2
expect_eq "lacking: status" 0 "$(rc_of "$TMPD/l")"
expect_eq "lacking: stdout" "optional: async=$NOT_FOUND alloc=999" "$(cat "$TMPD/l.out")"
expect_eq "lacking: stderr" "devcheck: the CUDA driver lacks cuMemFree_v2; checking nothing" "$(cat "$TMPD/l.err")"
