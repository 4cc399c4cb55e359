#!/bin/sh
# cuDNN's v9 backend checked with NVIDIA's own libcudnn.so.9 (issue 37):
# tests/libapi/dnn_real.c builds and finalizes a convolution's graph with
# the nvidia-cudnn wheel's library on the CPU (the oracle: no stand-in
# answers) and executes it on two simulated GPUs under devcheck, which
# records the variant pack and the tensors as they are set and asks cuDNN
# nothing back:
#  - the real library refuses a finalized pack's UNIQUE_IDS (3000,
#    CUDNN_STATUS_NOT_SUPPORTED), with devcheck and without;
#  - correct: no finding; buggy (W on cuda:1): exactly one error naming
#    cudnnBackendExecute, the argument (uid=2), cuda:0 and cuda:1, and W's
#    allocation line; host (X in pageable memory: a tensor not by value):
#    one host_memory error of uid=1;
#  - unseen (the pack set through libcudnn_graph.so.9's own setter, which
#    devcheck does not hook): no finding, the pack said unseen once;
#  - each prints and exits as without devcheck.
# The wheel comes with the Python clients' virtualenv (mk/pyenv.sh).
. "$ROOT/tests/lib.sh"
need_pyenv
lib=$(ls "$PYENV"/lib/python3*/site-packages/nvidia/cudnn/lib/libcudnn.so.9 2>/dev/null | head -n 1)
[ -n "$lib" ] || fail "no nvidia-cudnn wheel in $PYENV"
exe=$BUILD/tests/libapi/dnn_real
[ -x "$exe" ] || fail "missing $exe (run make first)"
aline=$(grep -n "// @alloc-w1\$" "$ROOT/tests/libapi/dnn_real.c" | cut -d: -f1)
# mode kind api argument call-device owner-device alloc-line
cases="correct - - - - - -
buggy device_mismatch cudnnBackendExecute CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=2] 0 1 $aline
host host_memory cudnnBackendExecute CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS[uid=1] 0 -1 -
unseen - - - - - -"
echo "$cases" | while read -r mode kind api arg dev owner al; do
    t=$TMPD/$mode
    on_sim env SIMCUDA_DEVICES=2 "$exe" "$lib" $mode >"$t.plain.out" 2>"$t.plain.err"
    echo $? >"$t.plain.rc"
    expect_eq "dnn_real $mode: plain status" 0 "$(cat "$t.plain.rc")"
    expect_grep "^dnn_real: cudnnBackendGetAttribute\(UNIQUE_IDS\) after finalize = 3000$" "$t.plain.out"
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json" "$exe" "$lib" $mode >"$t.out" 2>"$t.err"
    echo $? >"$t.rc"
    expect_same_run "dnn_real $mode" "$t.plain" "$t"
    python3 - "$t.json" "$kind" "$api" "$arg" "$dev" "$owner" "$al" <<'PY' || fail "dnn_real $mode: findings (above)"
import json, sys
path, kind, api, arg, dev, owner, al = sys.argv[1:]
recs = [json.loads(l) for l in open(path)]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
def site(stack):
    return next((f["line"] for f in stack if (f.get("file") or "").endswith("dnn_real.c")), None)
got = [(r["kind"], r["severity"], r.get("api"), r.get("argument"), r["launch"]["device"],
        r["operand"]["owner_device"], site(r["alloc_stack"])) for r in found]
want = [] if kind == "-" else [(kind, "error", api, arg, int(dev), int(owner), None if al == "-" else int(al))]
if got != want:
    print("    findings: got %r, want %r" % (got, want), file=sys.stderr)
    sys.exit(1)
PY
    if [ "$mode" = unseen ]; then
        expect_grep "^devcheck: cudnnBackendExecute: a variant pack devcheck never saw set .*said once" "$t.err"
    else
        expect_no_grep "never saw set" "$t.err"
    fi
done || exit 1
echo "dnn_real: ok"
