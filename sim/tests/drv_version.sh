#!/bin/sh
# SIMCUDA_DRIVER_VERSION and SIMCUDA_HIDE: cuDriverGetVersion, cuGetProcAddress
# answers and symbolStatus, dlsym, calls bound before the hiding, the one line
# (once) and its delivery to cuLogsRegisterCallback; a lazily bound call to a
# hidden entry point fails to bind, as with a driver that never exported it;
# the sim's runtime refuses a 12.2 driver.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB SIMCUDA_DRIVER_VERSION SIMCUDA_HIDE
T=$BUILD/tests/sim
on_sim "$T/drv_version" full >"$TMPD/full" 2>&1 || { cat "$TMPD/full" >&2; fail "drv_version full"; }
expect_no_grep 'simcuda: ' "$TMPD/full"
SIMCUDA_DRIVER_VERSION=12020 on_sim "$T/drv_version" 12020 >"$TMPD/old" 2>&1 || { cat "$TMPD/old" >&2; fail "drv_version 12020"; }
expect_eq "lines about cuFuncGetParamInfo" 1 "$(grep -c '^simcuda: cuFuncGetParamInfo is not in a driver of version 12020 (SIMCUDA_DRIVER_VERSION): CUDA_ERROR_NOT_SUPPORTED$' "$TMPD/old")"
SIMCUDA_HIDE=cuFuncGetParamInfo,cuKernelGetParamInfo on_sim "$T/drv_version" hide >"$TMPD/hide" 2>&1 || { cat "$TMPD/hide" >&2; fail "drv_version hide"; }
expect_eq "lines about cuFuncGetParamInfo" 1 "$(grep -c '^simcuda: cuFuncGetParamInfo is hidden (SIMCUDA_HIDE): CUDA_ERROR_NOT_SUPPORTED$' "$TMPD/hide")"
# a lazily bound call (drv_launch calls cuFuncGetParamInfo) cannot bind
SIMCUDA_HIDE=cuFuncGetParamInfo on_sim env LD_BIND_NOT=1 "$T/drv_launch" >"$TMPD/lazy" 2>&1 && fail "drv_launch ran with cuFuncGetParamInfo hidden"
expect_grep 'symbol lookup error: .*undefined symbol: cuFuncGetParamInfo' "$TMPD/lazy"
# the sim's runtime refuses a driver older than 13.0
SIMCUDA_DRIVER_VERSION=12020 on_sim "$T/rt_devices" >"$TMPD/rt" 2>&1 && fail "rt_devices ran on driver 12020"
expect_grep 'cudaErrorInsufficientDriver|insufficient' "$TMPD/rt"
exit 0
