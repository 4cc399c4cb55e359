#!/bin/sh
# sync=1 (`devcheck --sync`): on its own each buggy sample learns of the sim's
# sticky CUDA_ERROR_ILLEGAL_ADDRESS later, at an unrelated call (e.g.
# pipeline_struct at cudaDeviceSynchronize).  Under --sync the error is
# attributed to the faulting launch: an async_error naming the kernel, the
# launch device, the operand it may not access with its owner (the same
# parameter as the launch check's finding), every operand with its owner, and
# the launch line; the program still gets the error and fails as before.
# The same with CUDA_LAUNCH_BLOCKING=1 set.  A captured launch is never
# synchronised; an error left by earlier work (a graph launch) is not blamed
# on the next launch; a launch seen only through CUPTI is not synchronised.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"
failed=""
for s in $BUGGY_SAMPLES; do
    (
        exp=$E2E/expected/$s.txt
        need "$SAMPLES/$s" "$exp"
        site=$(sed -n 's/^[a-z_]* severity=error .* at=\([^ ]*\).*/\1/p' "$exp" | head -n 1)
        t=$TMPD/$s.bare
        run "$t" on_sim "$SAMPLES/$s"
        expect_eq "$s on its own: exit status" 1 "$(rc_of "$t")"
        # on its own the error surfaces at a later call, not at the launch
        expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$t.out"
        expect_no_grep "^$s: FAILED: [^ ]*:${site##*:}:" "$t.out"
        [ "$s" = pipeline_struct ] && expect_grep '^pipeline_struct: FAILED: .*cudaDeviceSynchronize' "$t.out"
        for blocking in "" 1; do
            t=$TMPD/$s.sync$blocking
            run "$t" env ${blocking:+CUDA_LAUNCH_BLOCKING=1} "$DEVCHECK_BIN" --sim 4 --sync --json "$t.json" -- "$SAMPLES/$s"
            expect_eq "$s --sync: exit status (the program still gets the error)" 1 "$(rc_of "$t")"
            expect_grep "^$s: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)" "$t.out"
            canon "$s" "$t.json" "$t.canon"
            # want: the launch check's findings, plus the async_error at the
            # same launch, naming the same operand and owner
            { sed -E -n '/^(device_mismatch|host_memory) severity=error /{s/^[a-z_]+ /async_error /;s/$/ error=CUDA_ERROR_ILLEGAL_ADDRESS/;p}' "$exp"
              awk '/^summary/{ sub(/^errors=/, "", $2); $2 = "errors=" ($2 + 1) } 1' "$exp"
            } | sort >"$t.want"
            sed -E 's/ operands=[^ ]*$//' "$t.canon" | sort >"$t.got"
            expect_findings "$t.want" "$t.got" "$s --sync${blocking:+ with CUDA_LAUNCH_BLOCKING=1}"
            # every operand with its owner, the culprit among them
            param=$(sed -n 's/^async_error .* param=\([0-9-]*\) .*/\1/p' "$t.canon")
            owner=$(sed -n 's/^async_error .* owner=\([0-9-]*\) .*/\1/p' "$t.canon")
            expect_grep "^async_error .* operands=([0-9-]+:[0-9-]+,)*$param:$owner(,[0-9-]+:[0-9-]+)*\$" "$t.canon"
            expect_grep "^==devcheck== ERROR: async_error: kernel .* failed on the device: CUDA_ERROR_ILLEGAL_ADDRESS\$" "$t.err"
            expect_grep "^      param $param, word \\+[0-9]+ = 0x[0-9a-f]+: .*; cuda:[0-9]+ may not access it\$" "$t.err"
        done
    ) || failed="$failed $s"
done
# Fixed samples: nothing to attribute.
for s in $BUGGY_SAMPLES; do
    (
        f=${s}_fixed t=$TMPD/$s.fixed
        run "$t" "$DEVCHECK_BIN" --sim 4 --sync --json "$t.json" -- "$SAMPLES/$f"
        expect_eq "$f --sync: exit status" 0 "$(rc_of "$t")"
        canon "$f" "$t.json" "$t.canon"
        expect_clean "$f --sync" "$t.canon"
    ) || failed="$failed ${s}_fixed"
done
# A captured launch is checked at capture time and never synchronised (the
# sim answers a synchronisation of a capturing stream with an error, which
# would be an async_error): the capture and instantiation succeed.
(
    t=$TMPD/capture
    PROG=$BUILD/tests/e2e/modes_prog
    need "$PROG"
    run "$t" "$DEVCHECK_BIN" --sim 4 --sync --json "$t.json" -- "$PROG" capture
    expect_eq "modes_prog capture --sync: exit status" 0 "$(rc_of "$t")"
    expect_grep '^modes_capture: OK ' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_findings /dev/stdin "$t.canon" "a captured launch under --sync" <<EOT
device_mismatch severity=error kernel=axpy api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site capture)
summary errors=1 warnings=0 launches=1 unchecked=0
EOT
) || failed="$failed capture"
# An error left by earlier work (here a graph launch, which devcheck does not
# synchronise) is not blamed on the next, correct launch: the stream is
# synchronised before each launch too.  The program still gets the error.
(
    t=$TMPD/graph
    PROG=$BUILD/tests/e2e/modes_prog
    run "$t" "$DEVCHECK_BIN" --sim 4 --sync --json "$t.json" -- "$PROG" graph
    expect_eq "modes_prog graph --sync: exit status" 1 "$(rc_of "$t")"
    expect_grep '^modes_prog: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_findings /dev/stdin "$t.canon" "a faulting graph, then a correct launch, under --sync" <<EOT
device_mismatch severity=error kernel=axpy api=cuGraphAddKernelNode param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site graph)
summary errors=1 warnings=0 launches=2 unchecked=0
EOT
) || failed="$failed graph"
# A launch from a thread that never called cudaSetDevice (no context current
# before it: modes_prog `fresh`) is synchronised and its fault attributed.
(
    t=$TMPD/fresh
    PROG=$BUILD/tests/e2e/modes_prog
    run "$t" "$DEVCHECK_BIN" --sim 4 --sync --json "$t.json" -- "$PROG" fresh
    expect_eq "modes_prog fresh --sync: exit status" 1 "$(rc_of "$t")"
    expect_grep '^modes_prog: FAILED: .*(cudaErrorIllegalAddress|CUDA_ERROR_ILLEGAL_ADDRESS)' "$t.out"
    canon modes_prog "$t.json" "$t.canon"
    expect_findings /dev/stdin "$t.canon" "a launch from a fresh thread under --sync" <<EOT
async_error severity=error kernel=axpy api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site fresh) error=CUDA_ERROR_ILLEGAL_ADDRESS operands=0:1,1:0
device_mismatch severity=error kernel=axpy api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1 at=$(prog_site fresh)
summary errors=2 warnings=0 launches=1 unchecked=0
EOT
) || failed="$failed fresh"
# A launch seen only through CUPTI (tests/cupti/bypass.cu gpa) is checked, not
# synchronised (FORMAT.md): no async_error, the program's output unchanged.
(
    t=$TMPD/bypass
    CT=$BUILD/tests/cupti
    need "$CT/bypass" "$SIM_DIR/libcupti.so.13"
    run "$t.plain" on_sim "$CT/bypass" gpa
    run "$t" under_devcheck env DEVCHECK_OPTIONS="sync=1:json_path=$t.json" "$CT/bypass" gpa
    expect_same_run "bypass --sync" "$t.plain" "$t"
    canon bypass "$t.json" "$t.canon" cupti
    expect_grep '^device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 ' "$t.canon"
    expect_no_grep '^async_error' "$t.canon"
) || failed="$failed bypass"
# A kernel without types names its culprit (CuPy's RawKernel handed a numpy
# pointer; tests/e2e/sync_rawkernel.cu): an extern "C" kernel in a cubin,
# no types, param 0 pageable host memory, param 1 cuda:0's own memory.  Both
# are 8-byte parameters: the launch's shape makes them pointer words (weak),
# so the launch itself gives a host_memory warning for param 0; the
# async_error lists param 0 first, as pageable host memory cuda:0 may not
# access, and names it as the operand; param 1 after it.
(
    t=$TMPD/rawkernel
    PROG=$BUILD/tests/e2e/sync_rawkernel
    need "$PROG" "$BUILD/tests/e2e/rawkernel.cubin"
    run "$t" "$DEVCHECK_BIN" --sim 2 --sync --json "$t.json" -- "$PROG" "$BUILD/tests/e2e/rawkernel.cubin"
    expect_eq "sync_rawkernel --sync: exit status" 0 "$(rc_of "$t")"
    expect_grep '^sync_rawkernel: synchronize: CUDA_ERROR_ILLEGAL_ADDRESS$' "$t.out"
    python3 - "$t.json" <<'PY' || fail "sync_rawkernel: async_error (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
errs = [r for r in recs if r["type"] == "finding" and r["kind"] == "async_error"]
got = [[(o["param"], o["memory"], o["owner_device"], o["access"], o["word"]) for o in r["operands"]] +
       [(r["operand"] or {}).get("param"), (r["operand"] or {}).get("memory"), r["kernel_mangled"], r.get("origin")]
       for r in errs]
want = [[(0, "pageable", -1, "no access", "pointer_param"), (1, "device", 0, "accessible", "pointer_param"),
         0, "pageable", "add1", "jit"]]
if got != want:
    print("    got  %r\n    want %r" % (got, want), file=sys.stderr)
    sys.exit(1)
hm = [(r["severity"], r["operand"]["param"], r["operand"]["evidence"], r.get("weak_evidence"))
      for r in recs if r["type"] == "finding" and r["kind"] == "host_memory"]
if hm != [("warning", 0, "launch_shape", True)]:
    print("    host_memory at the launch: got %r" % hm, file=sys.stderr)
    sys.exit(1)
PY
    expect_grep '^      param 0, word \+0 = 0x[0-9a-f]+: pageable host memory; cuda:0 may not access it$' "$t.err"
    expect_grep '^    evidence: weak: launch shape only: ' "$t.err"
    expect_grep '^    operand: param 0, word \+0 = 0x[0-9a-f]+: pageable host memory ' "$t.err"
) || failed="$failed rawkernel"
[ -z "$failed" ] || fail "sync=1 wrong for:$failed"
echo "ok: sync=1 attributes asynchronous errors to their launch"
