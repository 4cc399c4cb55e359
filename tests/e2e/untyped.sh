#!/bin/sh
# Kernels without types (issue 28), in C through the driver API
# (tests/e2e/untyped_prog.cu): tests/e2e/untyped.cu's extern "C"
# scale_rows(int n, float a, float *x, long long m, struct s) from a cubin
# whose parameter records give sizes only, launched on cuda:0.
#  - plain cubin: x and m are 8-byte parameters, judged by the launch's shape
#    only: cuda:1's memory and malloc'd memory in x are found at the launch
#    (kernel, param 2, both devices, the launch line) as weak warnings
#    (evidence launch_shape), never errors; an integer m equal to cuda:1's
#    address is one too (the rule cannot tell it from a pointer: README);
#  - -G cubin: its DWARF types x as a pointer (errors, evidence dwarf) and m as
#    an integer (quiet);
#  - both: pinned memory, correct memory and a struct passed by value with a
#    stale pointer to cuda:1 give nothing;
#  - mode=migrate moves the operand of a dwarf finding (the faulting launch
#    then computes the right result) and never that of a launch_shape one;
#  - a program linked with libnvrtc that compiles the source (nvrtc:SOURCE):
#    typed from the source, errors (evidence source), the integer quiet;
#  - a devcheck recording replays to the same verdicts (dwarf recorded).
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
PROG=$BUILD/tests/e2e/untyped_prog
need "$DEVCHECK_BIN" "$PROG" "$BUILD/tests/e2e/untyped.cubin" "$BUILD/tests/e2e/untyped_G.cubin"
LINE=$(grep -n '// the launch$' "$ROOT/tests/e2e/untyped_prog.cu" | cut -d: -f1)

# findings T: "kind severity param launch owner memory evidence weak at" per finding, then "errors warnings"
findings() {
    canon untyped_prog "$1.json" "$1.canon"
    python3 - "$1.json" "$1.canon" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = list({r["id"]: r for r in recs if r.get("type") == "finding"}.values())
at = {}
for l in open(sys.argv[2]):
    w = dict(x.split("=", 1) for x in l.split()[1:] if "=" in x)
    at[(l.split()[0], w.get("param"))] = w.get("at", "-")
for r in sorted(f, key=lambda r: (r["kind"], r["operand"]["param"])):
    o = r["operand"]
    print(r["kind"], r["severity"], o["param"], r["launch"]["device"], o.get("owner_device"), o["memory"],
          o["evidence"], "weak" if r.get("weak_evidence") else "strong", at.get((r["kind"], str(o["param"])), "?"))
s = [r for r in recs if r.get("type") == "summary"][-1]
print(s["errors"], s["warnings"])
PY
}

owner_none=-1
for g in "" _G; do
    cubin=$BUILD/tests/e2e/untyped$g.cubin
    if [ -z "$g" ]; then sev=warning ev=launch_shape kind=weak; else sev=error ev=dwarf kind=strong; fi
    errs=0 warns=1
    [ -n "$g" ] && errs=1 warns=0
    for c in other pageable pinned correct integer struct; do
        t=$TMPD/$c$g
        run "$t" "$DEVCHECK_BIN" --sim 2 --json "$t.json" -- "$PROG" "$cubin" "$c"
        expect_eq "$c$g: exit status (the program's)" 0 "$(rc_of "$t")"
        got=$(findings "$t")
        case $c in
            other)    want="device_mismatch $sev 2 0 1 device $ev $kind untyped_prog.cu:$LINE
$errs $warns"
                      expect_grep '^untyped_prog: synchronize: CUDA_ERROR_ILLEGAL_ADDRESS$' "$t.out" ;;
            pageable) want="host_memory $sev 2 0 $owner_none pageable $ev $kind untyped_prog.cu:$LINE
$errs $warns" ;;
            integer)  if [ -z "$g" ]; then
                          want="device_mismatch warning 3 0 1 device launch_shape weak untyped_prog.cu:$LINE
0 1"
                      else
                          want="0 0"
                      fi ;;
            *)        want="0 0" ;;
        esac
        expect_eq "untyped$g $c: findings" "$want" "$got"
        [ "$c" = other ] || expect_grep '^untyped_prog: synchronize: CUDA_SUCCESS$' "$t.out"
    done
done
expect_grep '^    evidence: weak: launch shape only: ' "$TMPD/other.err"
expect_no_grep 'evidence: weak' "$TMPD/other_G.err"

# mode=migrate: the dwarf finding's operand is moved (the launch computes:
# 0*2..7*2), the launch_shape one's never (it still faults)
t=$TMPD/migrate_G
run "$t" "$DEVCHECK_BIN" --sim 2 --mode migrate --json "$t.json" -- "$PROG" "$BUILD/tests/e2e/untyped_G.cubin" other
expect_eq "migrate -G: exit status" 0 "$(rc_of "$t")"
expect_grep '^untyped_prog: synchronize: CUDA_SUCCESS$' "$t.out"
expect_grep '^untyped_prog: result\[1\]=2 result\[7\]=14$' "$t.out"
expect_grep 'action: migrated' "$t.err"
t=$TMPD/migrate
run "$t" "$DEVCHECK_BIN" --sim 2 --mode migrate --json "$t.json" -- "$PROG" "$BUILD/tests/e2e/untyped.cubin" other
expect_eq "migrate plain: exit status" 0 "$(rc_of "$t")"
expect_grep '^untyped_prog: synchronize: CUDA_ERROR_ILLEGAL_ADDRESS$' "$t.out"
expect_no_grep 'action: migrated' "$t.err"
# NVRTC linked into the program (its entry points bound by symbol version,
# nvrtcCreateProgram@libnvrtc.so.13): typed from the source, x's findings
# are errors (evidence source), the integer and the struct quiet
SRC=nvrtc:$ROOT/tests/e2e/untyped.cu
for c in other pageable pinned correct integer struct; do
    t=$TMPD/nvrtc_$c
    run "$t" "$DEVCHECK_BIN" --sim 2 --json "$t.json" -- "$PROG" "$SRC" "$c"
    expect_eq "nvrtc $c: exit status (the program's)" 0 "$(rc_of "$t")"
    case $c in
        other)    want="device_mismatch error 2 0 1 device source strong untyped_prog.cu:$LINE
1 0" ;;
        pageable) want="host_memory error 2 0 -1 pageable source strong untyped_prog.cu:$LINE
1 0" ;;
        *)        want="0 0" ;;
    esac
    expect_eq "nvrtc $c: findings" "$want" "$(findings "$t")"
done

# a devcheck recording carries what the cubin's DWARF said (and its origin):
# the replay judges x by it (an error), and the plain cubin's by its shape
for g in "" _G; do
    t=$TMPD/rec$g
    mkdir -p "$t.d"
    run "$t" "$DEVCHECK_BIN" --sim 2 --record-launches "$t.d" -- "$PROG" "$BUILD/tests/e2e/untyped$g.cubin" other
    run "$t.replay" "$DEVCHECK_BIN" replay --json "$t.replay.json" "$t.d"/*.jsonl
    got=$(python3 -c '
import json, sys
f = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(" ".join("%s/%s/%s/%s" % (r["kind"], r["severity"], r["operand"]["param"], r["operand"]["evidence"])
               for r in f if r.get("type") == "finding"))' "$t.replay.json")
    if [ -n "$g" ]; then want=device_mismatch/error/2/dwarf; else want=device_mismatch/warning/2/launch_shape; fi
    expect_eq "replay of the recording$g" "$want" "$got"
done
echo "ok: kernels without types, from a cubin without and with DWARF"
