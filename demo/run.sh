#!/bin/sh
# `make demo`: devcheck's main job, shown on the samples (built by `make all`;
# this script builds nothing).  Runs each buggy sample under the devcheck
# wrapper and shows its report, then the fixed twins and the correct peer
# pipeline, which must come out clean.  With no NVIDIA driver the wrapper runs
# them on the simulated GPUs (SIMCUDA_DEVICES, 4 by default) and says so.
# Exits 0 when every sample behaved as expected: errors reported for each
# buggy sample, none for the fixed ones and the correct pipeline, and each
# buggy sample completing with its correct result under --mode migrate.
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

total=$((good + bad))
echo
if [ $bad -eq 0 ]; then
    echo "demo: all $total samples behaved as expected"
    exit 0
fi
echo "demo: $bad of $total samples did NOT behave as expected"
exit 1
