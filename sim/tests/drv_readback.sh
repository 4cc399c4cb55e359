#!/bin/sh
# The read-back line: once per process, for the first copy of device memory
# that no copy, memset or kernel with a host twin wrote into host memory,
# naming that copy's source and size; never for memory something wrote.
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER SIMCUDA_MEM_MB
LINE='^simcuda: reading device memory that no computed kernel or copy wrote \('
for mode in unwritten written twin notwin dtod granule pinned async twod; do
    on_sim env SIMCUDA_DEVICES=1 "$BUILD/tests/sim/drv_readback" $mode >"$TMPD/$mode.out" 2>"$TMPD/$mode.err" ||
        { cat "$TMPD/$mode.err" >&2; fail "drv_readback $mode: status $?"; }
    want=$(sed -n 's/^src=\(0x[0-9a-f]*\) n=\([0-9]*\)$/\1 \2/p' "$TMPD/$mode.out")
    [ -n "$want" ] || fail "drv_readback $mode: printed no src= line"
    got=$(grep -Ec "$LINE" "$TMPD/$mode.err")
    case $want in
    "0x0 0") expect_eq "$mode: read-back lines" 0 "$got" ;;
    *)  expect_eq "$mode: read-back lines" 1 "$got"
        set -- $want
        expect_grep "$LINE$1, $2 bytes; the simulated GPUs compute only copies, memsets, the sim's NVIDIA libraries and kernels with a host twin\): values are not what a GPU would give$" "$TMPD/$mode.err" ;;
    esac
done
