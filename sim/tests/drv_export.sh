#!/bin/sh
# NVIDIA's private export tables: one line per asking library, naming it; CUDA_ERROR_NOT_SUPPORTED.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
on_sim "$BUILD/tests/sim/drv_export" >"$TMPD/out" 2>"$TMPD/err" || { cat "$TMPD/err" >&2; fail "drv_export"; }
expect_eq "lines about export tables" 2 "$(grep -c 'asked for NVIDIA' "$TMPD/err")"
expect_grep "^simcuda: drv_export asked for NVIDIA's private export table \{6bd5fb6c-5bf4-e74a-8987-d93912fd9df9\}; NVIDIA's own runtime cannot run on the simulated GPUs$" "$TMPD/err"
expect_grep "^simcuda: libdrv_export.so asked for NVIDIA's private export table \{01020304-0506-0708-090a-0b0c0d0e0f10\}; " "$TMPD/err"
