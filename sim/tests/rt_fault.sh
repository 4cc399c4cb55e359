#!/bin/sh
# Runtime test: a launch on device 0 reading device 1's memory faults
# (cudaErrorIllegalAddress at the next synchronizing call, sticky) unless peer
# access is enabled or the pool grants device 0 access; pageable host memory
# faults too; an IPC handle opened with lazy peer access runs.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
for mode in nopeer pool-denied pageable; do
    rt_run rt_fault $mode
    expect_grep '^fault, sticky$' "$TMPD/rt_fault.out"
done
for mode in peer pool ipc; do
    rt_run rt_fault $mode
    expect_grep '^ran$' "$TMPD/rt_fault.out"
done
