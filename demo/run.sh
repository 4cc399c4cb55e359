#!/bin/sh
# `make demo`: devcheck's main job, shown on the samples (built by `make all`;
# this script builds nothing).  Runs each buggy sample under the devcheck
# wrapper and shows its report, then the fixed twins and the correct peer
# pipeline, which must come out clean.  With no NVIDIA driver the wrapper runs
# them on the simulated GPUs (SIMCUDA_DEVICES, 4 by default) and says so.
# Exits 0 when every sample behaved as expected: errors reported for each
# buggy sample, none for the fixed ones and the correct pipeline, and each
# buggy sample completing with its correct result under --mode migrate;
# then the Python act (below).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
DEVCHECK=$BUILD/bin/devcheck
SAMPLES=$BUILD/samples
export SIMCUDA_DEVICES=${SIMCUDA_DEVICES:-4}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/devcheck-demo.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# name|what it reproduces|what the fixed twin does
SCENARIOS='vision_merge|image features on cuda:1 concatenated with text embeddings on cuda:0|features copied to cuda:0 first (cudaMemcpyPeer)
embedding_lookup|token ids on cuda:1 indexing an embedding table on cuda:0|ids moved to the table'"'"'s device
cross_entropy|logits on cuda:3, labels on cuda:1, loss kernel on cuda:3|labels moved to cuda:3
host_tokens|token ids left in pageable host memory, read by a kernel on cuda:0|ids copied to the device (cudaMemcpy)
pipeline_struct|4-stage pipeline, a stale activation inside a struct passed by value|every stage reads the copy on its own GPU
driver_api|KV cache on the default device, Triton-style cuLaunchKernel via cuGetProcAddress|cache created on the layer'"'"'s device
driver_api_rt|the same, driver entry points from cudaGetDriverEntryPointByVersion (as PyTorch)|cache created on the layer'"'"'s device'

for f in "$DEVCHECK" "$SAMPLES/pipeline_peer"; do
    [ -x "$f" ] || { echo "demo: $f is not built; run make demo (or make all) first" >&2; exit 1; }
done

BOLD="" PLAIN=""
[ -t 1 ] && BOLD=$(printf '\033[1m') PLAIN=$(printf '\033[0m')
good=0 bad=0
# show TITLE PROGRAM WANT: runs PROGRAM under devcheck with its report on the
# terminal; WANT is "errors" (at least one error finding), "migrated" (errors
# found, moved by --mode migrate, and the program succeeded) or "clean" (no
# error and the program succeeded; with "clean-strict" no warning either).
# Further arguments go to devcheck.  Prints a verdict line.
show() {
    title=$1 prog=$2 want=$3
    shift 3
    printf '\n%s=== %s%s\n' "$BOLD" "$title" "$PLAIN"
    "$DEVCHECK" --json "$TMP/run.json" "$@" -- "$SAMPLES/$prog" </dev/null
    rc=$?
    counts=$(python3 - "$TMP/run.json" <<'PY'
import json, sys
summary, migrated = None, set()
try:
    for line in open(sys.argv[1]):
        if line.strip():
            obj = json.loads(line)
            if obj.get("type") == "summary":
                summary = obj
            elif obj.get("type") == "finding" and obj.get("action") == "migrated":
                migrated.add(obj.get("id"))
except (OSError, ValueError):
    pass
print("%s %s %d" % (summary.get("errors", "?"), summary.get("warnings", "?"), len(migrated)) if summary else "? ? 0")
PY
)
    set -- $counts
    errors=$1 warnings=$2 moved=$3
    case $want:$errors:$warnings:$rc:$moved in
        errors:[1-9]*:*:*:*|migrated:[1-9]*:*:0:[1-9]*|clean:0:*:0:0|clean-strict:0:0:0:0)
            good=$((good + 1))
            echo "--- as expected: $errors error(s), $warnings warning(s), $moved migrated; program exit status $rc" ;;
        *)
            bad=$((bad + 1))
            echo "--- UNEXPECTED: wanted $want, got $errors error(s), $warnings warning(s), $moved migrated; program exit status $rc" ;;
    esac
    rm -f "$TMP/run.json"
}

echo "devcheck demo: buggy samples first (each must be reported), then their fixes (each must be clean),"
echo "then the buggy samples again under --mode migrate (each must run to its correct result)."
printf '%s\n' "$SCENARIOS" >"$TMP/scenarios"
while IFS='|' read -r name what fix; do
    show "$name (buggy): $what" "$name" errors
done <"$TMP/scenarios"
while IFS='|' read -r name what fix; do
    show "${name}_fixed: $fix" "${name}_fixed" clean-strict
done <"$TMP/scenarios"
show "pipeline_peer (correct): peer copies between stages, one direct read over enabled peer access -- a peer_access warning at most" \
    pipeline_peer clean
while IFS='|' read -r name what fix; do
    show "$name under --mode migrate: devcheck moves the operand for each launch, the program completes" \
        "$name" migrated --mode migrate
done <"$TMP/scenarios"

# The Python act: the seeds as PyTorch / Triton programs (demo/python/), run
# with the clients' virtualenv (mk/pyenv.sh; skipped with one line when it
# cannot be made).  Each buggy program must be reported with its .py lines
# (PyTorch's own error explained as a framework_device_error), or refused as
# a GPU refuses it and explained (the Triton kernel under the wrong current
# device: Triton's own ValueError before any launch, and devcheck's
# pointer_refused naming the tensor's device, the current one, the call and
# allocation lines); each fixed twin must run to its OK line with no such
# finding.  (Findings in PyTorch's own kernels, from stale words
# in their by-value structs, are the precision work's: counted, not judged.)
# name|what it reproduces[|what a run must show: reported (the default) or refused]
PYSEEDS='vision_merge|image features on cuda:1 concatenated with text embeddings on cuda:0 (torch.cat)
embedding_lookup|token ids on cuda:1, embedding table on cuda:0
cross_entropy|logits on cuda:3, labels on cuda:1 (F.cross_entropy)
host_tokens|token ids left on the CPU, model on cuda:0
custom_kernel|a Triton kernel called under the wrong current device, inside NVTX range decoder.layer.3|refused
llava_merge|a tiny LLaVA (transformers, split by accelerate): image features of the vision tower on cuda:3 merged into text embeddings on cuda:0'
# show_py TITLE SCRIPT WANT [ARGS]: WANT is "reported", "refused" (the
# program ends with Triton's ValueError, as on a GPU) or "fixed".
show_py() {
    title=$1 script=$2 want=$3
    shift 3
    printf '\n%s=== %s%s\n' "$BOLD" "$title" "$PLAIN"
    "$DEVCHECK" --json "$TMP/py.json" -- "$PY" "$ROOT/demo/python/$script.py" "$@" </dev/null 2>"$TMP/py.err"
    rc=$?
    cat "$TMP/py.err" >&2
    verdict=$(python3 - "$TMP/py.json" "$script" "$want" "$rc" "$TMP/py.err" <<'PY'
import json, sys
path, script, want, rc = sys.argv[1], sys.argv[2] + ".py", sys.argv[3], int(sys.argv[4])
refusal = "ValueError: Pointer argument cannot be accessed from Triton (cpu tensor?)"
recs = {}
try:
    for line in open(path):
        if line.strip():
            r = json.loads(line)
            if r.get("type") == "finding":
                recs[r["id"]] = r
except (OSError, ValueError):
    pass
def ours(r):    # a finding the script's own code is behind: its op or launch line is in the script
    return any(f.get("file", "").endswith("/" + script) for f in r.get("launch_python_stack") or [])
mine = [r for r in recs.values() if r["severity"] == "error" and (r["kind"] in ("framework_device_error", "pointer_refused") or
        (ours(r) and "at::native" not in (r.get("kernel") or "")))]
theirs = [r for r in recs.values() if r["severity"] == "error" and r not in mine]
note = "; %d in PyTorch's own kernels (not judged)" % len(theirs) if theirs else ""
if want == "reported":
    print("ok %d finding(s) for the script's bug%s" % (len(mine), note) if mine else "bad no finding for the script's bug")
elif want == "refused":
    refused = rc != 0 and any(l.rstrip("\n") == refusal for l in open(sys.argv[5], errors="replace"))
    why = [r for r in mine if r["kind"] == "pointer_refused"]
    print("ok refused before any launch, as on a GPU: %s; explained: cuda:%d's tensor with cuda:%d current" %
          (refusal, why[0]["launch"]["device"], why[0]["launch"]["current_device"]) if refused and why else
          "bad no Triton refusal (exit status %d)" % rc if not refused else "bad the refusal is not explained")
else:
    print(("ok no finding for the script, exit status 0%s" % note) if not mine and rc == 0 else
          "bad %d finding(s), exit status %d" % (len(mine), rc))
PY
)
    case $verdict in
        ok*) good=$((good + 1)); echo "--- as expected: ${verdict#ok }" ;;
        *) bad=$((bad + 1)); echo "--- UNEXPECTED: ${verdict#bad }" ;;
    esac
    rm -f "$TMP/py.json"
}
if PYENV=$(sh "$ROOT/mk/pyenv.sh" 2>"$TMP/pyenv.err"); then
    PY=$PYENV/bin/python
    export TRITON_CACHE_DIR="${DEVCHECK_CACHE:-$HOME/.cache/devcheck}/triton" TRITON_DEFAULT_FP_FUSION=1
    export PYTHONDONTWRITEBYTECODE=1 PATH="$PYENV/bin:$PATH"
    export HF_HUB_OFFLINE=1 TRANSFORMERS_VERBOSITY=error     # llava_merge.py: built from its config, nothing downloaded
    echo
    echo "The Python act: the same bugs in PyTorch and Triton programs (demo/python/), each reported with its"
    echo "own .py lines, then the fixed programs."
    printf '%s\n' "$PYSEEDS" >"$TMP/pyseeds"
    while IFS='|' read -r name what want; do
        show_py "$name.py (buggy): $what" "$name" "${want:-reported}"
    done <"$TMP/pyseeds"
    while IFS='|' read -r name what want; do
        show_py "$name.py --fixed" "$name" fixed --fixed
    done <"$TMP/pyseeds"
else
    echo
    echo "demo: the Python act is skipped: no Python client environment ($(tail -n 1 "$TMP/pyenv.err"))"
fi

total=$((good + bad))
echo
if [ $bad -eq 0 ]; then
    echo "demo: all $total samples behaved as expected"
    exit 0
fi
echo "demo: $bad of $total samples did NOT behave as expected"
exit 1
