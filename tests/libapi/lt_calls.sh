#!/bin/sh
# How often devcheck calls into cuBLASLt itself (issue 37): lt_prog stale
# (tests/libapi/lt_prog.c) makes 102 cublasLtMatmul calls (100 on one cached
# descriptor whose epilogue went back to DEFAULT, its bias pointer of
# cuda:1 kept: legal, no finding) on the sim's cuBLASLt.  callgrind
# (--compress-strings=no) counts every call from libdevcheck.so into
# libcublasLt.so.13 and names it: each hook's forwarding call of its own
# entry point is the program's; any other is devcheck's own (a getter): at
# most 2 per matmul are allowed, 0 getters are made.
. "$ROOT/tests/lib.sh"
command -v valgrind >/dev/null || fail "valgrind is missing (mk/deps.sh)"
LA=$BUILD/tests/libapi
export LD_LIBRARY_PATH="$LA/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
under_devcheck env SIMCUDA_DEVICES=2 valgrind --tool=callgrind --compress-strings=no --compress-pos=no \
    --dump-instr=no --callgrind-out-file="$TMPD/cg" "$LA/lt_plt" stale >"$TMPD/out" 2>"$TMPD/err" ||
    { tail -n 20 "$TMPD/err" >&2; fail "lt_plt stale under callgrind"; }
expect_grep "^lt_prog stale: done$" "$TMPD/out"
expect_grep "SUMMARY: 0 findings" "$TMPD/err"
python3 - "$TMPD/cg" <<'PY' || fail "devcheck's own calls into cuBLASLt (above)"
import sys, collections
ob = fn = cob = cfn = None
calls = collections.Counter()
for line in open(sys.argv[1]):
    k, _, v = line.rstrip("\n").partition("=")
    if k == "ob": ob = v
    elif k == "fl" or k == "fi" or k == "fe": pass
    elif k == "fn": fn, cob = v.split("@")[0], None
    elif k == "cob": cob = v
    elif k == "cfn": cfn = v.split("@")[0]
    elif k == "calls":
        callee = cob if cob is not None else ob
        if ob and ob.endswith("libdevcheck.so") and callee and "libcublasLt.so" in callee:
            calls[(fn, cfn)] += int(v.split()[0])
        cob = None
own = {k: n for k, n in calls.items() if k[0] != k[1]}
matmuls = calls.get(("cublasLtMatmul", "cublasLtMatmul"), 0)
print("    devcheck -> cuBLASLt: %d matmuls forwarded; own calls: %r" % (matmuls, own), file=sys.stderr)
bad = []
if matmuls != 102:
    bad.append("forwarded cublasLtMatmul %d times, want 102" % matmuls)
if sum(own.values()) > 2 * matmuls:
    bad.append("more than 2 own calls per matmul")
if any("Get" in c for _, c in own):
    bad.append("getters called")
for b in bad:
    print("    " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "lt_calls: ok"
