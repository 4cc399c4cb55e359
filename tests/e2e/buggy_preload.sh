#!/bin/sh
# Every buggy sample under bare LD_PRELOAD (DEVCHECK_OPTIONS=json_path=...)
# yields exactly its expected findings (tests/e2e/expected/NAME.txt): kind,
# severity, kernel, launching entry point, parameter, launch and owner
# devices, memory kind, count, and the launch stack's innermost program frame
# on the sample's launch line.  The program still faults and keeps its exit
# status; the text report names the launch site.  Three ways: backend=both,
# interpose and cupti give the same findings, each seen by its path.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"

# check_buggy NAME EXPECTED BACKEND [VAR=VALUE...]: one run of a buggy sample.
check_buggy() {
    s=$1 exp=$2 b=$3; shift 3
    need "$SAMPLES/$s" "$exp"
    expect_launch_sites "$exp"
    t=$TMPD/$(basename "$exp" .txt).$b
    run "$t" under_devcheck env "$@" DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$s"
    canon "$s" "$t.json" "$t.canon" "$b"
    expect_findings "$exp" "$t.canon" "$s under LD_PRELOAD, backend=$b $*"
    expect_grep '^devcheck: SUMMARY: ' "$t.err"
    for site in $(sed -n 's/.* at=\([^ ]*\).*/\1/p' "$exp"); do
        expect_grep "$site" "$t.err"
    done
}

# Each sample in a subshell: one failing sample does not hide the others.
failed=""
for b in $BACKENDS; do
    for s in $BUGGY_SAMPLES; do
        (
            check_buggy "$s" "$E2E/expected/$s.txt" "$b"
            expect_eq "$s under devcheck, backend=$b: the program's exit status" 1 "$(rc_of "$TMPD/$s.$b")"
            expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$TMPD/$s.$b.out"
        ) || failed="$failed $s(backend=$b)"
    done
    # Host ids on a device with pageable memory access: legal and slow, a warning.
    (
        check_buggy host_tokens "$E2E/expected/host_tokens_hmm.txt" "$b" SIMCUDA_HMM=1
        expect_eq "host_tokens with HMM under devcheck, backend=$b: exit status" 0 \
            "$(rc_of "$TMPD/host_tokens_hmm.$b")"
    ) || failed="$failed host_tokens(HMM,backend=$b)"
done
[ -z "$failed" ] || fail "wrong findings for:$failed"
echo "ok: buggy samples under LD_PRELOAD"
