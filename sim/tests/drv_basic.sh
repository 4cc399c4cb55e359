#!/bin/sh
# Device enumeration, attributes, error names, cuGetProcAddress, contexts (also per thread), streams, events.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
T=$BUILD/tests/sim
on_sim "$T/drv_basic" 2>"$TMPD/err" || { cat "$TMPD/err" >&2; fail "drv_basic with the default device count (4)"; }
# the unimplemented entry point it calls twice is named once
expect_eq "lines naming cuArrayCreate_v2" 1 "$(grep -c 'cuArrayCreate_v2 is not implemented' "$TMPD/err")"
on_sim env SIMCUDA_DEVICES=4 "$T/drv_basic" || fail "drv_basic with SIMCUDA_DEVICES=4"
on_sim env SIMCUDA_DEVICES=16 "$T/drv_basic" || fail "drv_basic with SIMCUDA_DEVICES=16"
