#!/bin/sh
# Runtime test: device memory shared between two processes (cudaIpc* handles
# and events, pool export/import of a descriptor sent over a unix socket and
# of a pointer, a VMM handle's descriptor); the child's writes are the
# parent's, and a launch on a device without peer access faults.  An IPC
# handle of an exited process fails with one line saying so.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_ipc
expect_grep '^ok$' "$TMPD/rt_ipc.out"
expect_no_grep '^simcuda' "$TMPD/rt_ipc.out"
out=$TMPD/gone.out
on_sim "$RT_BIN/rt_ipc" gone >"$out" 2>&1 || { sed 's/^/    > /' "$out" >&2; fail "rt_ipc gone"; }
expect_grep '^simcuda: cuIpcOpenMemHandle: the exporting process [0-9]+ has exited: CUDA_ERROR_INVALID_VALUE$' "$out"
expect_grep '^ok$' "$out"
