#!/bin/sh
# The real-GPU battery's library programs (tests/gpu/lib_progs.py, `make
# gpu-check`) on the simulated GPUs, against tests/libapi's libraries, the
# sim's own cuBLAS, cuBLASLt, cuFFT, cuDNN, NCCL and cuSOLVER, which compute
# (LIB_PROGS_SIM: no torch), so their call sequences are proven before GPU
# time is spent on them:
#  - each program prints `gpu-prog: NAME OK` and exits 0, without devcheck
#    and under it alike; a buggy one faults at the synchronisation after the
#    call and exits 3, as on a GPU;
#  - a correct one: no finding; a buggy one: exactly one error naming the
#    call (api), the argument, the call's device and the owner's (-1: pageable
#    host memory), at the program's line that makes the call (`lib.API(`),
#    for another GPU's memory allocated at the line marked `# the bug`;
#  - cublaslt_bug on 1 GPU hands the bias from the host, on 2 from cuda:1;
#    cusolver_bug's A is found at cusolverDnSpotrf only (the sim's cuSOLVER
#    calls cublasSgemm_v2 inside it, as NVIDIA's calls cuBLAS: not a second
#    finding).
. "$ROOT/tests/lib.sh"
need_pyenv
LA=$BUILD/tests/libapi
PROGS=$ROOT/tests/gpu/lib_progs.py
# the sim's libraries compute: their results are checked; a buggy one
# faults and exits 3, as on a GPU
export LD_LIBRARY_PATH="$LA/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LIB_PROGS_SIM=1
# prog gpus kind api argument call-device owner-device status
cases="cublas 1 - - - - - 0
cublas_bug 1 host_memory cublasSgemm_v2 B 0 -1 3
cublaslt 1 - - - - - 0
cublaslt_bug 1 host_memory cublasLtMatmul CUBLASLT_MATMUL_DESC_BIAS_POINTER 0 -1 3
cublaslt_bug 2 device_mismatch cublasLtMatmul CUBLASLT_MATMUL_DESC_BIAS_POINTER 0 1 3
cufft 1 - - - - - 0
cufft_bug 1 host_memory cufftExecC2C idata 0 -1 3
cudnn 1 - - - - - 0
cudnn_bug 1 host_memory cudnnConvolutionForward w 0 -1 3
nccl 1 - - - - - 0
nccl_bug 1 host_memory ncclAllReduce sendbuff 0 -1 3
cusolver 1 - - - - - 0
cusolver_bug 1 host_memory cusolverDnSpotrf A 0 -1 3"
echo "$cases" | while read -r prog gpus kind api arg dev owner status; do
    t=$TMPD/${prog}_$gpus
    on_sim env SIMCUDA_DEVICES=$gpus "$PY" "$PROGS" "$prog" >"$t.plain.out" 2>"$t.plain.err"
    echo $? >"$t.plain.rc"
    under_devcheck env SIMCUDA_DEVICES=$gpus DEVCHECK_OPTIONS="json_path=$t.json" "$PY" "$PROGS" "$prog" \
        >"$t.out" 2>"$t.err"
    echo $? >"$t.rc"
    what="lib_progs.py $prog on $gpus GPU(s)"
    expect_eq "$what: plain status" "$status" "$(cat "$t.plain.rc")"
    if [ "$status" = 0 ]; then
        expect_grep "^gpu-prog: $prog OK\$" "$t.plain.out"
    else
        expect_grep "^gpu-prog: $prog failed: cudaStreamSynchronize returned 700\$" "$t.plain.out"
    fi
    expect_same_run "$what" "$t.plain" "$t"
    "$PY" - "$t.json" "$PROGS" "$prog" "$kind" "$api" "$arg" "$dev" "$owner" <<'PY' ||
import json, sys
path, src, prog, kind, api, arg, dev, owner = sys.argv[1:]
lines = open(src).read().split("\n")
recs = [json.loads(l) for l in open(path)]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
summ = [r for r in recs if r["type"] == "summary"][-1]
def line_of(stack, function):
    """The line of lib_progs.py's frame in function, and its text."""
    for f in stack or []:
        if f.get("file") == src and f.get("function") == function:
            return lines[f["line"] - 1]
    return ""
func = prog[:-4] if prog.endswith("_bug") else prog
got = [(r["kind"], r["severity"], r.get("api"), r.get("argument"), r["launch"]["device"], r["launch"]["api"],
        r["operand"]["owner_device"], ("lib.%s(" % r.get("api")) in line_of(r.get("launch_python_stack"), func),
        "# the bug" in line_of(r.get("alloc_python_stack"), func) if r["kind"] == "device_mismatch" else None,
        r["count"]) for r in found]
want = [] if kind == "-" else [(kind, "error", api, arg, int(dev), api, int(owner), True,
                                True if kind == "device_mismatch" else None, 1)]
bad = []
if got != want:
    bad.append("findings: got %r, want %r" % (got, want))
if summ["errors"] != len(want) or summ["warnings"] != 0:
    bad.append("summary: %d errors, %d warnings" % (summ["errors"], summ["warnings"]))
for b in bad:
    print("    %s" % b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
        fail "$what: findings (above)"
    if [ "$kind" = - ]; then
        expect_no_grep '==devcheck==' "$t.err"
    else
        expect_grep "^==devcheck== ERROR: $kind: $api argument $arg on cuda:$dev " "$t.err"
        expect_grep "^    at .*tests/gpu/lib_progs\.py:[0-9]+ in ${prog%_bug}" "$t.err"
    fi
done || exit 1
echo "gpu_progs: ok"
