#!/bin/sh
# One call site, one finding (report/FORMAT.md: "Findings are deduplicated"):
# tests/e2e/repeat_prog.cu hands cuda:1's memory to a kernel on cuda:0 three
# times from one line, from the program and through a library (with symbols,
# and stripped: LD_LIBRARY_PATH picks the stripped copy).  devcheck checks a
# kernel's first launch and the later ones by different paths of its own;
# its frames are not part of the call site, so each is exactly one finding
# of count 3 naming the program's line; a second line is a second finding.
# Legal peer traffic is one finding per (kernel, parameter, device pair)
# (the end of this file).
. "$ROOT/tests/lib.sh"
prog=$BUILD/tests/e2e/repeat_prog
[ -x "$prog" ] || fail "missing $prog"
src=$ROOT/tests/e2e/repeat_prog.cu
for what in program library library-stripped two-sites; do
    mode=$what libdir=
    [ "$what" = library-stripped ] && mode=library libdir=$BUILD/tests/e2e/repeat/stripped
    t=$TMPD/$what
    (if [ -n "$libdir" ]; then LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH; fi
     under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json" "$prog" "$mode" >"$t.out" 2>"$t.err")
    expect_eq "repeat_prog $what: status" 0 $?
    site=program
    [ "$mode" = library ] && site=library
    python3 - "$t.json" "$mode" "$(grep -n "// @launch-$site\$" "$src" | cut -d: -f1)" \
        "$(grep -n "// @launch-second\$" "$src" | cut -d: -f1)" <<'PY' || fail "repeat_prog $what: findings (above)"
import json, sys
path, mode, line, second = sys.argv[1:]
recs = [json.loads(l) for l in open(path)]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
def site(r):
    return next((f["line"] for f in r["launch_stack"] if (f.get("file") or "").endswith("repeat_prog.cu")), None)
got = sorted((r["kind"], r["launch"]["device"], r["operand"]["owner_device"], site(r), r["count"]) for r in found)
want = [("device_mismatch", 0, 1, int(line), 3)]
if mode == "two-sites":
    want = sorted(want + [("device_mismatch", 0, 1, int(second), 1)])
if got != want:
    print("    findings: got %r, want %r" % (got, want), file=sys.stderr)
    sys.exit(1)
PY
done
[ "$(readelf -S "$BUILD/tests/e2e/repeat/stripped/librepeat.so" | grep -c '\.symtab')" = 0 ] ||
    fail "librepeat.so in stripped/ has a symbol table"
# Legal peer traffic (issue 38): with peer access 0 -> 1 on, the 3 launches
# at the first site, one at the second and one at the second over another
# allocation of cuda:1 are one peer_access warning (kernel, parameter 0,
# device pair 0 -> 1) of count 5, shown at its first site; the access
# matrix still counts every operand (5 from cuda:0 to cuda:1).  peer=error
# keeps an error per site and allocation stack (3 findings).
for opt in warn error; do
    t=$TMPD/peer.$opt
    under_devcheck env SIMCUDA_DEVICES=2 DEVCHECK_OPTIONS="json_path=$t.json:peer=$opt" "$prog" peer >"$t.out" 2>"$t.err"
    expect_eq "repeat_prog peer, peer=$opt: status" 0 $?
    python3 - "$t.json" "$opt" "$(grep -n "// @launch-program\$" "$src" | cut -d: -f1)" \
        "$(grep -n "// @launch-second\$" "$src" | cut -d: -f1)" "$(grep -n "// @launch-other\$" "$src" | cut -d: -f1)" \
        <<'PY' || fail "repeat_prog peer, peer=$opt: findings (above)"
import json, sys
path, opt, line, second, other = sys.argv[1:]
recs = [json.loads(l) for l in open(path)]
found = list({r["id"]: r for r in recs if r["type"] == "finding"}.values())
def site(r):
    return next((f["line"] for f in r["launch_stack"] if (f.get("file") or "").endswith("repeat_prog.cu")), None)
got = sorted((r["kind"], r["severity"], r["launch"]["device"], r["operand"]["owner_device"], r["operand"]["param"], site(r),
              r["count"])
             for r in found)
sev = "warning" if opt == "warn" else "error"
want = [("peer_access", sev, 0, 1, 0, int(line), 5)]
if opt == "error":
    want = sorted([("peer_access", sev, 0, 1, 0, int(line), 3), ("peer_access", sev, 0, 1, 0, int(second), 1),
                   ("peer_access", sev, 0, 1, 0, int(other), 1)])
errs = []
if got != want:
    errs.append("findings: got %r, want %r" % (got, want))
summ = [r for r in recs if r["type"] == "summary"][-1]
cell = [c["operands"] for c in summ.get("access", []) if c["launch_device"] == 0 and c["owner"] == 1]
if cell != [5]:
    errs.append("access matrix 0 -> 1: %r, want [5]" % cell)
if errs:
    print("    " + "\n    ".join(errs), file=sys.stderr)
    sys.exit(1)
PY
done
