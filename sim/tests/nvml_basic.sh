#!/bin/sh
# The sim's NVML agrees with the sim's driver (nvml_basic.c) with 3 devices
# and one peer pair, and as driver 12.2; an unimplemented NVML function
# prints one line naming it, once.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_MEM_MB SIMCUDA_DRIVER_VERSION SIMCUDA_HIDE
T=$BUILD/tests/sim
SIMCUDA_DEVICES=3 SIMCUDA_PEER=0-1 on_sim "$T/nvml_basic" >"$TMPD/out" 2>&1 || { cat "$TMPD/out" >&2; fail "nvml_basic"; }
expect_eq "lines naming nvmlDeviceGetTemperature" 1 \
    "$(grep -c '^simcuda: nvmlDeviceGetTemperature is not implemented$' "$TMPD/out")"
SIMCUDA_DRIVER_VERSION=12020 SIMCUDA_DEVICES=3 SIMCUDA_PEER=0-1 on_sim "$T/nvml_basic" >"$TMPD/old" 2>&1 ||
    { cat "$TMPD/old" >&2; fail "nvml_basic as driver 12.2"; }
exit 0
