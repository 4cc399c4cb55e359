#!/bin/sh
# What a word of a closed library's kernel proves (report/FORMAT.md, "What a
# word proves"; issue 25).  tests/e2e/libkernels_prog.cu, on cuda:0:
#  - the stand-in library (its file is named libcublasLt.so.13: origin
#    "library") launches its splitk_reduce with alpha on the stack and beta on
#    the heap, host pointer mode, never read: no finding, two operands counted
#    (summary quiet_operands, the access matrix's pageable column);
#  - the same kernel compiled into the program, the same arguments: the
#    host_memory errors of a user's kernel (params 2 and 3, origin "program");
#  - the library's kernel handed cuda:1's memory without peer access: a
#    device_mismatch warning (not an error) marked weak evidence, text and JSON;
#  - the kernel from a cubin on the heap, loaded with cuModuleLoadData by the
#    library (origin "library", by the loading call's return address: as the
#    first case) and by the program (origin "jit": as the second).
# The program's own output and exit status are what they are without devcheck;
# the library case again under backend=cupti.
. "$ROOT/tests/lib.sh"
prog=$BUILD/tests/e2e/libkernels_prog
[ -x "$prog" ] || fail "missing $prog"
kernel=_Z13splitk_reducePfPKfS1_S1_ii
cubin=$BUILD/tests/e2e/libkernels/splitk.cubin
[ -f "$cubin" ] || fail "missing $cubin"
for what in library program library-peer library-jit program-jit; do
    t=$TMPD/$what
    on_sim env SIMCUDA_DEVICES=2 "$prog" "$what" "$cubin" >"$t.plain.out" 2>&1
    echo $? >"$t.plain.rc"
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json" "$prog" "$what" "$cubin" >"$t.out" 2>"$t.err"
    echo $? >"$t.rc"
    expect_same_run "libkernels_prog $what" "$t.plain" "$t"
    expect_eq "libkernels_prog $what: status" 0 "$(cat "$t.rc")"
    python3 - "$t.json" "$what" "$kernel" <<'PY' || fail "libkernels_prog $what: findings (above)"
import json, sys
path, what, kernel = sys.argv[1:]
recs = [json.loads(l) for l in open(path)]
last = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
summ = [r for r in recs if r["type"] == "summary"][-1]
got = sorted((r["kind"], r["severity"], r["kernel_mangled"], r.get("origin"), r["launch"]["device"],
              r["operand"]["param"], r["operand"]["memory"], r["operand"]["owner_device"],
              r.get("weak_evidence", False)) for r in last)
want = {
    "library": [],
    "program": [("host_memory", "error", kernel, "program", 0, 2, "pageable", -1, False),
                ("host_memory", "error", kernel, "program", 0, 3, "pageable", -1, False)],
    "library-peer": [("device_mismatch", "warning", kernel, "library", 0, 1, "device", 1, True)],
    "library-jit": [],
    "program-jit": [("host_memory", "error", kernel, "jit", 0, 2, "pageable", -1, False),
                    ("host_memory", "error", kernel, "jit", 0, 3, "pageable", -1, False)],
}[what]
quiet = {"library": 2, "program": 0, "library-peer": 0, "library-jit": 2, "program-jit": 0}[what]
bad = []
if got != want:
    bad.append("findings: got %r, want %r" % (got, want))
if summ.get("quiet_operands") != quiet:
    bad.append("quiet_operands: got %r, want %d" % (summ.get("quiet_operands"), quiet))
if summ["errors"] != sum(w[1] == "error" for w in want) or summ["warnings"] != sum(w[1] == "warning" for w in want):
    bad.append("summary: %d errors, %d warnings" % (summ["errors"], summ["warnings"]))
pageable = sum(c["operands"] for c in summ.get("access", []) if c["launch_device"] == 0 and c["owner"] == -2)
if what != "library-peer" and pageable != 2:
    bad.append("access matrix: %d pageable operands on cuda:0, want 2" % pageable)
for b in bad:
    print("    %s: %s" % (what, b), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
    case $what in
    library|library-jit)
        expect_no_grep '==devcheck==' "$t.err"
        expect_grep 'SUMMARY: 0 findings .*; 2 host memory operands not reported' "$t.err" ;;
    program|program-jit)
        expect_grep '==devcheck== ERROR: host_memory: kernel splitk_reduce' "$t.err"
        expect_no_grep 'not reported' "$t.err" ;;
    library-peer)
        expect_grep '==devcheck== WARNING: device_mismatch: kernel splitk_reduce' "$t.err"
        expect_grep '^    evidence: weak: .*may not read this parameter; check the call at the library.s API$' "$t.err"
        expect_no_grep '==devcheck== ERROR' "$t.err" ;;
    esac
done
# backend=cupti sees the library's image the same way (its fatbin in the
# object): nothing reported, both operands counted.
t=$TMPD/cupti
under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json:backend=cupti" "$prog" library >"$t.out" 2>"$t.err" ||
    fail "libkernels_prog library (backend=cupti): status $?"
expect_no_grep '==devcheck==' "$t.err"
expect_grep 'SUMMARY: 0 findings .*by cupti\); 2 host memory operands not reported' "$t.err"
