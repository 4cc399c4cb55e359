#!/bin/sh
# The samples on the sim alone, no devcheck: each checks its own result and
# prints one result line on stdout.  A buggy sample faults like a real GPU
# (cudaErrorIllegalAddress at the next synchronizing call): "NAME: FAILED: ...",
# exit 1; its fixed twin and the correct pipeline print "NAME: OK", exit 0.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
for s in $BUGGY_SAMPLES; do
    need "$SAMPLES/$s" "$SAMPLES/${s}_fixed"
    run "$TMPD/$s" on_sim "$SAMPLES/$s"
    expect_eq "$s: exit status" 1 "$(rc_of "$TMPD/$s")"
    expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$TMPD/$s.out"
    expect_eq "$s: result lines on stdout" 1 "$(wc -l <"$TMPD/$s.out")"
    run "$TMPD/${s}_fixed" on_sim "$SAMPLES/${s}_fixed"
    expect_eq "${s}_fixed: exit status" 0 "$(rc_of "$TMPD/${s}_fixed")"
    expect_grep "^$s: OK \([0-9]+ values checked\)$" "$TMPD/${s}_fixed.out"
    expect_eq "${s}_fixed: result lines on stdout" 1 "$(wc -l <"$TMPD/${s}_fixed.out")"
done
for s in $CORRECT_SAMPLES; do
    need "$SAMPLES/$s"
    run "$TMPD/$s" on_sim "$SAMPLES/$s"
    expect_eq "$s: exit status" 0 "$(rc_of "$TMPD/$s")"
    expect_grep "^$s: OK \([0-9]+ values checked\)$" "$TMPD/$s.out"
done
# Without a peer link between cuda:2 and cuda:3 the pipeline copies instead.
run "$TMPD/peer_topo" on_sim env SIMCUDA_PEER=0-1,1-2 "$SAMPLES/pipeline_peer"
expect_eq "pipeline_peer without a 2-3 link: exit status" 0 "$(rc_of "$TMPD/peer_topo")"
# On devices with pageable memory access (HMM/ATS) host ids are legal.
run "$TMPD/hmm" on_sim env SIMCUDA_HMM=1 "$SAMPLES/host_tokens"
expect_eq "host_tokens with HMM: exit status" 0 "$(rc_of "$TMPD/hmm")"
expect_grep "^host_tokens: OK" "$TMPD/hmm.out"
echo "ok: samples on the sim"
