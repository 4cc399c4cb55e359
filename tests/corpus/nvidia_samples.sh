#!/bin/sh
# NVIDIA's own multi-GPU cuda-samples under devcheck on the simulated GPUs
# (tests/corpus/README.md): correct programs, so devcheck must find nothing.
# Each configuration (sample, device count, backend, arguments) runs once
# without devcheck and once under it; asserted:
#   - the sample's own verdict is the same both ways: exit status and its
#     verdict lines (PASSED, Test passed, Result = PASS, ...);
#   - every JSON report (one per process: the IPC samples fork) follows the
#     schema, each finding and launch was seen by the backend's path, and
#     there is no error and no warning but legal access (peer_access; host
#     memory that is pinned or registered);
#   - the samples that pass on the sim without devcheck are exactly those
#     not in SIM_GAPS: a sample that fails on the sim on its own is a sim gap,
#     named in the output, not a devcheck failure -- unless it passed before.
# The samples are built from the bare git mirror of NVIDIA/cuda-samples
# (CUDA_SAMPLES_MIRROR) into ${DEVCHECK_CACHE:-$HOME/.cache/devcheck}, outside
# the clone (build_samples.sh); without the mirror the test is skipped.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
MIRROR=${CUDA_SAMPLES_MIRROR:-/work/.mirror/NVIDIA+cuda-samples/repo}
CACHE=${DEVCHECK_CACHE:-${HOME:-/tmp}/.cache/devcheck}
TWINS=$BUILD/tests/corpus/libcorpus_twins.so

if ! git --git-dir="$MIRROR" rev-parse -q --verify HEAD >/dev/null 2>&1; then
    echo "SKIP: no NVIDIA cuda-samples mirror at $MIRROR (set CUDA_SAMPLES_MIRROR to a bare clone of github.com/NVIDIA/cuda-samples)"
    exit 0
fi
need "$DEVCHECK_LIB" "$DEVCHECK_BIN" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1" "$TWINS"
CS=$(sh "$ROOT/tests/corpus/build_samples.sh" "$MIRROR" "$CACHE" | tail -n 1) &&
    [ -d "$CS" ] || fail "the NVIDIA samples did not build (see above)"
note "samples: $CS"

# Samples that fail on the sim without devcheck (sim gaps), and why.
SIM_GAPS="simpleAttributes simpleHyperQ systemWideAtomics UnifiedMemoryStreams MonteCarloMultiGPU"
#  simpleAttributes      cudaStreamSetAttribute is not implemented by the sim
#  simpleHyperQ          judges its own kernels' measured concurrency (no device code runs)
#  systemWideAtomics     device atomics on managed memory racing the CPU (no twin)
#  UnifiedMemoryStreams  cuBLAS carries NVIDIA's runtime (private export tables)
#  MonteCarloMultiGPU    its cuRAND device-side kernels have no twin

# Samples that use the driver API alone and never allocate or launch: devcheck
# is never started in them, so it writes no report (and no SUMMARY line).
NO_REPORT="deviceQueryDrv"

# Known false errors, SAMPLE:KERNEL:PARAM: devcheck's errors on that operand
# of that sample are named in the output, not counted; any other error fails.
# Each is a devcheck bug to fix, then to remove from here.
KNOWN_FALSE=""
#  (graphMemoryNodes:validateGPU:1 was one until fc836c2: unset, unused
#  pointer fields of a struct passed by value, stale host addresses.)

# The configurations, one a line: SAMPLE DEVICES[/PEERS] BACKEND[,BACKEND...]
# [ARG...], PEERS the sim's peer topology (SIMCUDA_PEER: only those pairs).
# Each backend (both, interpose, cupti; wrapper: `devcheck --sim DEVICES`, both
# backends) is a configuration of its own; the run
# without devcheck is shared by the backends of a line.
CONFIGS='
simpleP2P                      4 both,interpose,cupti
simpleP2P                      2 wrapper
simpleP2P                      4/0-1,2-3 interpose
simpleMultiGPU                 4 both,cupti
simpleMultiGPU                 2 wrapper
cudaOpenMP                     4 both,cupti
cudaOpenMP                     2 interpose
p2pBandwidthLatencyTest        4 both,cupti             --numElems=65536
p2pBandwidthLatencyTest        4/0-1,2-3 interpose              --numElems=65536 --sm_copy --p2p_read
streamOrderedAllocationP2P     4 both,interpose,cupti
conjugateGradientMultiDeviceCG 4 both
conjugateGradientMultiDeviceCG 2 interpose
vectorAddMMAP                  4 both,cupti
vectorAddMMAP                  2 interpose
topologyQuery                  4 both
deviceQuery                    2 both
deviceQueryDrv                 4 cupti
threadMigration                4 both,cupti
simpleIPC                      4 both
simpleIPC                      2 interpose,cupti,wrapper
streamOrderedAllocationIPC     2 both,interpose
memMapIPCDrv                   4 both,cupti
memMapIPCDrv                   2 interpose
simpleMultiCopy                4 both
simpleCallback                 4 both
simpleZeroCopy                 4 both,cupti
simpleZeroCopy                 4 interpose              --use_generic_memory
simpleStreams                  4 both
asyncAPI                       4 both,cupti
vectorAdd                      4 both
vectorAdd_nvrtc                4 both
vectorAddDrv                   4 both,wrapper
simpleDrvRuntime               4 cupti
matrixMulDrv                   4 both
simpleOccupancy                4 cupti
simpleCooperativeGroups        4 both
streamOrderedAllocation        4 interpose
simpleCudaGraphs               4 both,cupti
jacobiCudaGraphs               4 both
jacobiCudaGraphs               4 interpose              -gpumethod=1
graphMemoryNodes               4 both,interpose
graphMemoryFootprint           4 both
StreamPriorities               4 both
simpleAttributes               4 both
simpleHyperQ                   4 interpose              -nstreams=4
systemWideAtomics              4 both
UnifiedMemoryStreams           4 both
MonteCarloMultiGPU             4 cupti
'

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }
# The sample's verdict: its exit status and the lines saying how it went.
verdict() {
    echo "exit=$(rc_of "$1")"
    grep -aE 'PASS|FAIL|[Pp]assed|[Ff]ailed|Success|Failure|[Ee]rror|Result' "$1.out" | tr -d '\r'
}
# sim_run SAMPLE DEVICES PREFIX PRELOAD ARG...: the sample in its own
# directory (where it finds its fatbin, PTX or NVRTC source), on DEVICES
# simulated GPUs, the twins preloaded after PRELOAD; stdin is not the list of
# configurations the loop reads.
sim_run() {
    _s=$1 _d=$2 _p=$3 _pre=$4; shift 4
    (cd "$CS/$_s" && run "$_p" env SIMCUDA_DEVICES="$_d" ${peer:+SIMCUDA_PEER=$peer} \
        LD_LIBRARY_PATH="$SIM_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$_pre${_pre:+ }$TWINS" "./$_s" "$@" </dev/null)
}

# failed MESSAGE: one configuration failed; the others still run.
failures=0
failed() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

configs=0 gaps="" closed="" false_seen="" checked=0 warns=0
n=0
printf '%s\n' "$CONFIGS" | grep -v '^$' >"$TMPD/configs"
while read -r s dp backends args; do
    n=$((n + 1))
    d=${dp%%/*} peer=
    [ "$d" = "$dp" ] || peer=${dp#*/}
    [ -x "$CS/$s/$s" ] || fail "$s: not built in $CS"
    base=$TMPD/$n.base
    sim_run "$s" "$d" "$base" "" $args
    verdict "$base" >"$base.verdict"
    what="$s ($d devices${peer:+, peers $peer}${args:+, $args})"
    if [ "$(rc_of "$base")" != 0 ]; then
        if in_list "$s" "$SIM_GAPS"; then
            in_list "$s" "$gaps" || gaps="$gaps $s"
            why=$(grep -ahiE 'simcuda:|error|failed|not supported' "$base.err" "$base.out" | head -n 1)
            note "sim gap: $what exits $(rc_of "$base") without devcheck: ${why:-no message}"
        else
            sed 's/^/    out> /' "$base.out" | tail -n 15 >&2
            sed 's/^/    err> /' "$base.err" | tail -n 15 >&2
            failed "$what fails on the sim without devcheck (exit $(rc_of "$base")) and is not a known sim gap"
            continue
        fi
    elif in_list "$s" "$SIM_GAPS"; then
        in_list "$s" "$closed" || closed="$closed $s"
    fi
    for b in $(echo "$backends" | tr , " "); do
        configs=$((configs + 1))
        t=$TMPD/$n.$b
        mkdir -p "$t.json.d"
        t0=$(date +%s%N)
        if [ "$b" = wrapper ]; then
            (cd "$CS/$s" && run "$t" env LD_PRELOAD="$TWINS" \
                ${peer:+SIMCUDA_PEER=$peer} "$DEVCHECK_BIN" --sim "$d" --json "$t.json.d/%p.jsonl" -- "./$s" $args </dev/null)
        else
            DEVCHECK_OPTIONS="backend=$b:json_path=$t.json.d/%p.jsonl" sim_run "$s" "$d" "$t" "$DEVCHECK_LIB" $args
        fi
        ms=$((($(date +%s%N) - t0) / 1000000))
        verdict "$t" >"$t.verdict"
        diff -u "$base.verdict" "$t.verdict" >"$t.vdiff" || {
            sed 's/^/    /' "$t.vdiff" >&2
            failed "$what, backend=$b: the sample's verdict differs under devcheck (- without, + with)"
            continue
        }
        reports=$(ls "$t.json.d")
        if [ -z "$reports" ]; then
            in_list "$s" "$NO_REPORT" || fail "$what, backend=$b: no JSON report written"
            echo "ok   $what backend=$b: exit $(rc_of "$t") both ways, no report (devcheck never started)"
            continue
        fi
        launches=0 ok=1 errs="0 errors"
        for r in $reports; do
            canon "$s" "$t.json.d/$r" "$t.$r.canon" "${b%wrapper}"
            grep -vE '^summary |^peer_access severity=warning |^host_memory severity=warning .* memory=(pinned|registered) ' \
                "$t.$r.canon" >"$t.$r.bad"
            for k in $KNOWN_FALSE; do
                [ "${k%%:*}" = "$s" ] || continue
                kp=${k#*:}
                grep -E " kernel=${kp%%:*} .* param=${kp#*:} " "$t.$r.bad" >"$t.$r.known" || continue
                note "known false error: $what, backend=$b: $(head -n 1 "$t.$r.known") (x$(wc -l <"$t.$r.known"))"
                in_list "$k" "$false_seen" || false_seen="$false_seen $k"
                errs="no errors but the known false ones"
                grep -vxF -f "$t.$r.known" "$t.$r.bad" >"$t.$r.rest"
                mv "$t.$r.rest" "$t.$r.bad"
            done
            bad=$(cat "$t.$r.bad")
            if [ -n "$bad" ]; then
                sed 's/^/    json> /' "$t.json.d/$r" | head -n 20 >&2
                failed "$what, backend=$b: devcheck reports more than legal access:
$bad"
                ok=0
                continue
            fi
            launches=$((launches + $(sed -n 's/^summary .* launches=\([0-9]*\) .*/\1/p' "$t.$r.canon")))
            warns=$((warns + $(sed -n 's/^summary errors=[0-9]* warnings=\([0-9]*\) .*/\1/p' "$t.$r.canon")))
        done
        [ $ok = 1 ] || continue
        checked=$((checked + launches))
        legal=$(grep -hE '^(peer_access|host_memory) severity=warning' "$t".*.canon | cut -d' ' -f1 | sort | uniq -c | awk '{ printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1 }')
        echo "ok   $what backend=$b: exit $(rc_of "$t") both ways, $launches launches, $errs${legal:+, legal: $legal} (${ms} ms)"
    done
done <"$TMPD/configs"

for k in $KNOWN_FALSE; do
    in_list "$k" "$false_seen" || note "known false error $k no longer seen (remove it from KNOWN_FALSE)"
done
[ -n "$closed" ] && note "now passing on the sim on their own (remove from SIM_GAPS):$closed"
echo "sim gaps (fail on the sim without devcheck, same under devcheck):${gaps:- none}"
[ $failures -eq 0 ] || fail "$failures of $configs configurations failed (above)"
[ "$configs" -ge 40 ] || fail "only $configs configurations ran (at least 40 expected)"
echo "ok: $configs configurations of NVIDIA's samples, $checked launches, 0 errors${false_seen:+ but the known false ones ($false_seen )}, $warns legal-access warnings"
