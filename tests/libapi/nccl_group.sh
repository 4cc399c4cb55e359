#!/bin/sh
# NCCL without its getters, and sync=1 at ncclGroupEnd (issue 37), on the
# sim's NCCL (sim/libs/nccl/), which pushes an NVTX range for every API
# call as NCCL does (the getters ncclCommCuDevice and ncclCommUserRank
# included: what a profiler sees):
#  - nccl_prog loop (102 grouped AllReduce calls, tests/libapi/nccl_prog.c)
#    under devcheck: sim/libs/nccl/tests/nvtx_count.c, loaded by NVTX's
#    injection mechanism, counts the NCCL domain's ranges: at most 2 getter
#    ranges in all (devcheck records each communicator where it is made),
#    and every API range as without devcheck;
#  - nccl_prog buggy under sync=1: the group is synchronised at its
#    ncclGroupEnd, never inside, so the fault of rank 1's recvbuff (on
#    cuda:0) is an async_error naming ncclAllReduce and the argument, at the
#    ncclGroupEnd line, besides the call's device_mismatch; the kernel the
#    sim's NCCL launches there is judged as one inside a checked call (no
#    weak warning, no async_error of its own);
#  - nccl_prog threads under sync=1 (four threads, one after the other,
#    each running one grouped AllReduce round and exiting): the same run as
#    without devcheck; under SANITIZE=address with LeakSanitizer on, no leak
#    allocated by hooks_nccl.c (each thread's group records, 4.6 KB, were
#    never freed until a key's destructor freed them at thread exit);
#  - nccl_weak: a weak reference to ncclAlltoAll (NCCL 2.28) binds to
#    NCCL's own, not devcheck's; dlsym of a handle gets devcheck's hook.
. "$ROOT/tests/lib.sh"
unset NCCL_NVTX_DISABLE
LA=$BUILD/tests/libapi
export LD_LIBRARY_PATH="$LA/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
inj=$BUILD/tests/sim/nccl/libnvtx_count.so
[ -r "$inj" ] || fail "missing $inj (run make first)"
on_sim env SIMCUDA_DEVICES=2 NVTX_INJECTION64_PATH="$inj" NVTX_COUNT_OUT="$TMPD/plain" "$LA/nccl_plt" loop \
    >"$TMPD/plain.out" 2>"$TMPD/plain.err" || { cat "$TMPD/plain.err" >&2; fail "nccl_plt loop"; }
under_devcheck env SIMCUDA_DEVICES=2 NVTX_INJECTION64_PATH="$inj" NVTX_COUNT_OUT="$TMPD/dc" "$LA/nccl_plt" loop \
    >"$TMPD/dc.out" 2>"$TMPD/dc.err" || { cat "$TMPD/dc.err" >&2; fail "nccl_plt loop under devcheck"; }
expect_grep "^nccl_prog loop: done$" "$TMPD/dc.out"
expect_grep "SUMMARY: 0 findings" "$TMPD/dc.err"
expect_grep "^ncclAllReduce 102$" "$TMPD/dc"
getters=$(awk '$1 == "ncclCommCuDevice" || $1 == "ncclCommUserRank" { n += $2 } END { print n + 0 }' "$TMPD/dc")
[ "$getters" -le 2 ] || { cat "$TMPD/dc" >&2; fail "102 collectives: $getters getter calls (want <= 2)"; }
grep -v '^ncclComm\(CuDevice\|UserRank\) ' "$TMPD/dc" | sort >"$TMPD/dc.api"
sort "$TMPD/plain" >"$TMPD/plain.api"
cmp -s "$TMPD/plain.api" "$TMPD/dc.api" || { diff -u "$TMPD/plain.api" "$TMPD/dc.api" >&2; fail "NCCL's API ranges differ"; }

aline=$(grep -n "// @alloc-recv\$" "$ROOT/tests/libapi/nccl_prog.c" | cut -d: -f1)
gline=$(awk '/^int main/ { m = 1 } m && /CK\(F\(ncclGroupEnd\)/ { print NR; exit }' "$ROOT/tests/libapi/nccl_prog.c")
under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="sync=1:json_path=$TMPD/sync.json" "$LA/nccl_plt" buggy \
    >"$TMPD/sync.out" 2>"$TMPD/sync.err"
python3 - "$TMPD/sync.json" "$aline" "$gline" <<'PY' || fail "nccl_plt buggy, sync=1: findings (above)"
import json, sys
path, aline, gline = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
recs = [json.loads(l) for l in open(path)]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
def site(stack):
    return next((f["line"] for f in stack or [] if (f.get("file") or "").endswith("nccl_prog.c")), None)
got = sorted((r["kind"], r.get("api"), r.get("argument"), r["launch"]["device"], r.get("error"),
              r["kernel"], site(r["alloc_stack"]) if r["kind"] != "async_error" else site(r["launch_stack"]))
             for r in found)
want = sorted([("device_mismatch", "ncclAllReduce", "recvbuff", 1, None, None, aline),
               ("async_error", "ncclAllReduce", "recvbuff", 1, "CUDA_ERROR_ILLEGAL_ADDRESS", None, gline)])
if got != want:
    print("    got  %r\n    want %r" % (got, want), file=sys.stderr)
    sys.exit(1)
PY
on_sim env SIMCUDA_DEVICES=2 "$LA/nccl_plt" threads >"$TMPD/thr.plain.out" 2>"$TMPD/thr.plain.err"
echo $? >"$TMPD/thr.plain.rc"
lsan=
case $SANITIZE in address|address,undefined) lsan="ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:symbolize=1" ;; esac
under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS=sync=1 $lsan "$LA/nccl_plt" threads >"$TMPD/thr.out" 2>"$TMPD/thr.err"
echo $? >"$TMPD/thr.rc"
if [ -n "$lsan" ]; then
    # a leak report's stacks name hooks_nccl.c when the records leak
    if grep -q 'hooks_nccl\.c' "$TMPD/thr.err"; then
        cat "$TMPD/thr.err" >&2
        fail "nccl_plt threads: LeakSanitizer reports memory allocated by hooks_nccl.c"
    fi
    note "nccl_plt threads under LeakSanitizer: $(grep -c 'Direct leak' "$TMPD/thr.err") leak(s), none from hooks_nccl.c"
fi
expect_grep "^nccl_prog threads: done$" "$TMPD/thr.out"
expect_eq "nccl_plt threads: status" "$(cat "$TMPD/thr.plain.rc")" "$(cat "$TMPD/thr.rc")"
# NCCL 2.28's ncclAlltoAll is not exported by devcheck (hooks_lib.def's
# DC_LIBNEW): a weak reference finds NCCL's own, as without devcheck (an
# older NCCL would leave it NULL); dlsym(handle) gets devcheck's hook (the
# door), as ncclAllReduce
under_devcheck env SIMCUDA_DEVICES=2 "$LA/nccl_weak" >"$TMPD/weak.out" 2>"$TMPD/weak.err" ||
    { cat "$TMPD/weak.err" >&2; fail "nccl_weak"; }
expect_grep "^weak: libnccl.so.2$" "$TMPD/weak.out"
expect_grep "^dlsym: libdevcheck.so$" "$TMPD/weak.out"
expect_grep "^allreduce: libdevcheck.so$" "$TMPD/weak.out"
echo "nccl_group: ok"
