#!/bin/sh
# Every buggy sample under bare LD_PRELOAD (DEVCHECK_OPTIONS=json_path=...)
# yields exactly its expected findings (tests/e2e/expected/NAME.txt): kind,
# severity, kernel, launching entry point, parameter, launch and owner
# devices, memory kind, count, and the launch stack's innermost program frame
# on the sample's launch line.  The program still faults and keeps its exit
# status; the text report names the launch site.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"

# check_buggy NAME EXPECTED [VAR=VALUE...]: one run of a buggy sample.
check_buggy() {
    s=$1 exp=$2; shift 2
    need "$SAMPLES/$s" "$exp"
    expect_launch_sites "$exp"
    t=$TMPD/$(basename "$exp" .txt)
    run "$t" under_devcheck env "$@" DEVCHECK_OPTIONS="json_path=$t.json" "$SAMPLES/$s"
    canon "$s" "$t.json" "$t.canon"
    expect_findings "$exp" "$t.canon" "$s under LD_PRELOAD $*"
    expect_grep '^devcheck: SUMMARY: ' "$t.err"
    for site in $(sed -n 's/.* at=\([^ ]*\).*/\1/p' "$exp"); do
        expect_grep "$site" "$t.err"
    done
}

# Each sample in a subshell: one failing sample does not hide the others.
failed=""
for s in $BUGGY_SAMPLES; do
    (
        check_buggy "$s" "$E2E/expected/$s.txt"
        expect_eq "$s under devcheck: the program's exit status" 1 "$(rc_of "$TMPD/$s")"
        expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$TMPD/$s.out"
    ) || failed="$failed $s"
done
# Host ids on a device with pageable memory access: legal and slow, a warning.
(
    check_buggy host_tokens "$E2E/expected/host_tokens_hmm.txt" SIMCUDA_HMM=1
    expect_eq "host_tokens with HMM under devcheck: exit status" 0 "$(rc_of "$TMPD/host_tokens_hmm")"
) || failed="$failed host_tokens(HMM)"
[ -z "$failed" ] || fail "wrong findings for:$failed"
echo "ok: buggy samples under LD_PRELOAD"
