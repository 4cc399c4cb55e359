#!/bin/sh
# The cost of a library call checked at its API (`make bench`, after
# bench/run.sh): instructions per call (callgrind, the measured loops of
# bench/libcalls.c only) without devcheck and under it, on the sim's
# libraries (sim/libs/: cuBLAS, cuBLASLt, NCCL and cuSOLVER, which compute
# and launch their kernels; allreduce on one rank is a cudaMemcpyAsync, as
# NCCL's), and their ratio.  The added instructions are devcheck's cost per
# call: the API check and the check of the library's launches inside the
# call.  Environment: BUILD, N (calls
# per section, 2000), OUT.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
N=${N:-2000}
OUT=${OUT:-$BUILD/bench/out}
prog=$BUILD/bench/libcalls
mkdir -p "$OUT"
# ir CONFIG SECTION: instructions per call of SECTION under CONFIG.
run() {
    rm -f "$OUT/cg.lib.$1".*
    env LD_LIBRARY_PATH="$BUILD/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ${2:+LD_PRELOAD=$2} \
        valgrind --tool=callgrind --instr-atstart=no --dump-instr=no --callgrind-out-file="$OUT/cg.lib.$1" \
        "$prog" "$N" >"$OUT/cg.lib.$1.stdout" 2>"$OUT/cg.lib.$1.stderr" ||
        { echo "bench: callgrind run of libcalls failed ($1; see $OUT/cg.lib.$1.stderr)" >&2; exit 1; }
    for f in "$OUT/cg.lib.$1".[0-9]*; do
        awk -v n="$N" '/^desc: Trigger: Client Request: / { s = $NF } /^(summary|totals):/ { t = $2 }
                       END { if (s != "") printf "%s %.0f\n", s, t / n }' "$f"
    done >"$OUT/ir.lib.$1"
}
run none ""
run devcheck "$BUILD/lib/libdevcheck.so"
ir() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "nan" }' "$OUT/ir.lib.$1"; }
printf '\nlibrary calls checked at their API (the libraries of the sim, %s calls per section)\n' "$N"
printf '%-38s%11s%11s%11s\n' "instructions per call" none devcheck ratio
for s in sgemm ltmatmul allreduce potrf; do
    a=$(ir none "$s"); b=$(ir devcheck "$s")
    printf '%-38s%11s%11s%11s\n' "$s" "$a" "+$(awk "BEGIN { printf \"%.0f\", $b - $a }")" \
        "x$(awk "BEGIN { printf \"%.1f\", $b / $a }")"
done
