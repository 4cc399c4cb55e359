#!/bin/sh
# Which calls of the sim's NCCL have side effects a profiler sees: as
# NCCL's (src/init.cc, src/collectives.cc, src/group.cc: NVTX3_FUNC_RANGE
# and NCCL_NVTX3_FUNC_RANGE), every API call pushes an NVTX range named after
# it in the domain "NCCL", the getters ncclCommCuDevice and ncclCommUserRank
# included; NCCL_NVTX_DISABLE=1 turns them off.  nvtx_count.c, loaded by
# NVTX's injection mechanism (NVTX_INJECTION64_PATH), counts them: 100
# rounds of both getters on 2 ranks are 200 ranges each, the grouped
# AllReduce one per rank, its ncclGroupStart/End one each.  (Issue 37: a
# tool that calls the getters around every collective adds two ranges per
# collective to a user's profile.)
. "$ROOT/tests/lib.sh"
unset SIMCUDA_DEVICES SIMCUDA_FAIL NCCL_NVTX_DISABLE
T=$BUILD/tests/sim/nccl
on_sim env SIMCUDA_DEVICES=2 NVTX_INJECTION64_PATH="$T/libnvtx_count.so" NVTX_COUNT_OUT="$TMPD/counts" \
    "$T/nccl_coll" getters >"$TMPD/out" 2>"$TMPD/err" || { cat "$TMPD/err" >&2; fail "nccl_coll getters"; }
sort "$TMPD/counts" >"$TMPD/got"
printf '%s\n' "ncclAllReduce 2" "ncclCommCuDevice 200" "ncclCommDestroy 2" "ncclCommInitAll 1" \
    "ncclCommUserRank 200" "ncclGroupEnd 1" "ncclGroupStart 1" | sort >"$TMPD/want"
cmp -s "$TMPD/got" "$TMPD/want" || { diff -u "$TMPD/want" "$TMPD/got" >&2; fail "NVTX ranges of the NCCL domain"; }
on_sim env SIMCUDA_DEVICES=2 NVTX_INJECTION64_PATH="$T/libnvtx_count.so" NVTX_COUNT_OUT="$TMPD/off" \
    NCCL_NVTX_DISABLE=1 "$T/nccl_coll" getters >"$TMPD/out" 2>"$TMPD/err" || { cat "$TMPD/err" >&2; fail "nccl_coll getters, NVTX off"; }
[ ! -s "$TMPD/off" ] || { cat "$TMPD/off" >&2; fail "NCCL_NVTX_DISABLE=1: ranges pushed"; }
echo "nccl_nvtx: ok"
