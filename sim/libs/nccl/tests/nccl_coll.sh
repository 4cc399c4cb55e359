#!/bin/sh
# The sim's NCCL (sim/libs/nccl/) on 2 and 4 simulated GPUs of one process:
# every mode of nccl_coll.c checks the values each rank receives against
# the host's own computation (every collective, every ncclRedOp on every
# type, PreMulSum, ncclCommSplit, ranks made by ncclCommInitAll, by
# ncclCommInitRank in one thread per rank and in one group); `fault`: a
# recvbuff of another device faults that rank's device as on a GPU (the
# sim names the kernel and the parameter with SIMCUDA_VERBOSE=1); `stream`:
# a stream of another device fails the launch (ncclUnhandledCudaError, and
# NCCL's WARN line with NCCL_DEBUG=WARN).
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL SIMCUDA_HMM SIMCUDA_PEER NCCL_DEBUG
T=$BUILD/tests/sim/nccl
for n in 2 4; do
    for mode in all threads initgroup onerank fault stream; do
        t=$TMPD/$mode$n
        on_sim env SIMCUDA_DEVICES=$n SIMCUDA_VERBOSE=1 NCCL_DEBUG=WARN "$T/nccl_coll" $mode >"$t.out" 2>"$t.err"
        rc=$?
        [ $rc = 0 ] || { cat "$t.out" "$t.err" >&2; fail "nccl_coll $mode on $n GPUs: status $rc"; }
        expect_grep "^nccl_coll $mode on $n GPUs: done\$" "$t.out"
    done
    expect_grep '^simcuda: ncclSimGet on device 1: pointer parameter 0 = 0x[0-9a-f]+ \(device 0 memory' \
        "$TMPD/fault$n.err"
    expect_grep '^fault: rank 1.s device: cudaErrorIllegalAddress$' "$TMPD/fault$n.out"
    expect_grep "NCCL WARN AllReduce: Cuda failure 400 'CUDA_ERROR_INVALID_HANDLE'" "$TMPD/stream$n.err"
    # nothing else faulted, and the sim said nothing else
    expect_no_grep '^simcuda' "$TMPD/all$n.err"
    expect_no_grep '^simnccl' "$TMPD/all$n.err"
    expect_no_grep '^simcuda' "$TMPD/threads$n.err"
done
echo "nccl_coll: ok"
