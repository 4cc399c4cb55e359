#!/bin/sh
# Another subscriber holds CUPTI (libcupti_holder.so, preloaded): a second cuptiSubscribe_v2 gets CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED and "CUPTI for <holder name>".
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB SIMCUPTI_HOLDER_NAME
T=$BUILD/tests/sim
holder=$T/libcupti_holder.so
env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$holder" "$T/cupti_held" >"$TMPD/out" 2>&1 ||
    { sed 's/^/    > /' "$TMPD/out" >&2; fail "cupti_held"; }
expect_no_grep 'cupti_holder:' "$TMPD/out"
env LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD:}$holder" SIMCUPTI_HOLDER_NAME=nsys-like \
    "$T/cupti_held" "CUPTI for nsys-like" >"$TMPD/out" 2>&1 ||
    { sed 's/^/    > /' "$TMPD/out" >&2; fail "cupti_held with SIMCUPTI_HOLDER_NAME"; }
