#!/bin/sh
# backend=cupti on a CUPTI that delivers no driver callback inside a runtime
# call (the sim's SIMCUDA_CUPTI_OUTERMOST=1; whether NVIDIA's delivers them
# is not documented), tests/preload/launches.cu: a runtime launch with a
# documented params struct is checked from it (the same device_mismatch,
# param, owner and api as when the driver's callback comes), its operand's
# cudaMalloc recorded from the runtime's own exit callback (owner cuda:1,
# known to devcheck with the allocation's stack, not asked of the driver);
# a driver launch is checked as ever; a __cudaLaunchKernel (no params struct)
# is counted unchecked, its unchecked_kernel finding naming the kernel and
# why, never guessed.  Stdout and exit status as on every run.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/launches"
K=_Z5probePfPKf
MISMATCH="device_mismatch kernel=$K param=1 launch=0 owner=1"
E1='summary errors=1 warnings=0'
UNREAD="CUPTI's record of this runtime launch carries no parameters, and no driver launch callback came inside it"
# MODE|expected findings (\n-separated)|checked unchecked
while IFS='|' read -r mode want counts; do
    t=$TMPD/$mode
    run "$t" under_devcheck env SIMCUDA_CUPTI_OUTERMOST=1 DEVCHECK_OPTIONS="backend=cupti:json_path=$t.json" \
        "$PT/launches" "$mode"
    expect_eq "$mode: status" 0 "$(rc_of "$t")"
    expect_eq "$mode: stdout" "launches: $mode" "$(cat "$t.out")"
    findings "$t.json" >"$t.f"
    printf '%b\n' "$want" >"$t.want"
    diff -u "$t.want" "$t.f" >&2 || { sed 's/^/    err> /' "$t.err" >&2; fail "$mode: findings differ (- expected, + got)"; }
    # the operand's cudaMalloc was recorded (from the runtime's exit
    # callback): its owner is devcheck's, with the stack of on_device()
    case $want in device_mismatch*)
        expect_eq "$mode: the allocation as recorded" "devcheck on_device" "$(python3 -c '
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    if r.get("kind") == "device_mismatch":
        fns = [f.get("function", "").split("(")[0] for f in r["alloc_stack"]]
        print(r["operand"]["owner_from"], *[f for f in fns if f == "on_device"])' "$t.json")" ;;
    esac
    set -- $counts
    expect_grep "; $1 launch(es)? checked, $2 unchecked \(0 seen by interpose, 1 by cupti\)\$" "$t.err"
    [ "$2" = 0 ] || expect_eq "$mode: the reason" "$UNREAD" "$(python3 -c '
import json, sys
print(*[r["reason"] for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "unchecked_kernel"])' "$t.json")"
    note "$mode: ok"
done <<EOT
rt|$MISMATCH api=cudaLaunchKernel\n$E1|1 0
rtex|$MISMATCH api=cudaLaunchKernelExC\n$E1|1 0
rtcoop|$MISMATCH api=cudaLaunchCooperativeKernel\n$E1|1 0
extra|$MISMATCH api=cuLaunchKernel\n$E1|1 0
peeroff|unchecked_kernel kernel=$K param=- launch=0 owner=- api=__cudaLaunchKernel\nsummary errors=0 warnings=0|0 1
EOT
echo "ok: runtime launches checked from their own parameters when no driver callback comes inside them"
