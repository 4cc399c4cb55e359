#!/bin/sh
# `make bench`, steady launches of a Triton kernel and of torch ops (issue
# 38): a launch whose finding devcheck knows already -- repeated, legal peer
# traffic, suppressed, ignored by option -- against a clean launch measured
# side by side in the same process (bench/steady_loops.py: CPU time of the
# whole process, every thread; the minimum of ROUNDS rounds of N launches;
# never wall time), under LD_PRELOAD of libdevcheck.so on the simulated
# GPUs.  Three processes, one per set of options: the defaults with
# host_memory=warn (clean, repeated, peer), a suppression of peer_access
# (clean, suppressed), peer=ignore (clean, ignored); and one without
# devcheck (none), because the case's own work is not the clean launch's: a
# torch copy from another GPU records and waits on events of both devices
# (x1.8 the clean copy's CPU time with no devcheck at all), the sim checks a
# peer or host operand.  So the ratio is the case under devcheck over what
# it would cost were devcheck to treat it as a clean launch: its own cost
# without devcheck plus what devcheck adds to the clean launch,
#   case / (none's case + (clean - none's clean)),
# each a PASS/FAIL line against 1.2x.  (Instructions would be steadier, but a
# Triton process under callgrind spends minutes importing and loading the
# compiled kernel; bench/torch.sh counts torch's instructions.)
# Then the first report in a torch process (issue 38: <= 5 ms): fresh
# processes of a clean copy_ (its first call loads torch's copy kernel) and
# then its peer twin, whose first call is the process's first report
# (libdw's start, its module list, the symbol indexes of libtorch_cpu,
# _cuda and _python, the Python frames); one launch per call, the first
# call's CPU time of the whole process and the least of ROUNDS later calls,
# under devcheck and without it, the median of FIRSTRUNS processes each.
# The report's cost is what devcheck adds to the peer case's first call
# beyond what it adds to a later, repeated call (whose own budget is the
# steady rows'):
#   (first - later) - (none's first - none's later);
# the clean case's first call is shown, not subtracted: torch's own first
# copy (~30 ms; a Triton kernel's compile ~500 ms) varies by more than the
# budget.  The same for a Triton kernel (its report names no libtorch frame).
# Not a test (tests/bench/torch_runs.sh runs the default process small).
#
# Environment: BUILD (build), N (launches per round, 2000), ROUNDS (5), PY
# (the python with torch and triton; default: mk/pyenv.sh's), SETS (none
# default supp ignore), FIRST (torch triton; empty: none), FIRSTRUNS (3), OUT.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
N=${N:-2000}
ROUNDS=${ROUNDS:-5}
SETS=${SETS:-none default supp ignore}
FIRST=${FIRST-torch triton}
FIRSTRUNS=${FIRSTRUNS:-3}
OUT=${OUT:-$BUILD/bench/steady}
if [ -z "${PY:-}" ]; then
    PY=$(sh "$ROOT/mk/pyenv.sh")/bin/python || { echo "bench: no Python environment with torch (mk/pyenv.sh)" >&2; exit 1; }
fi
cache=${DEVCHECK_CACHE:-${HOME:-/tmp}/.cache/devcheck}
export TRITON_CACHE_DIR="${TRITON_CACHE_DIR:-$cache/triton}" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$(dirname "$PY"):$PATH"
dc=$BUILD/lib/libdevcheck.so
sim=$BUILD/sim
rm -rf "$OUT"
mkdir -p "$OUT"
printf '{\n   bench-steady\n   devcheck:peer_access\n}\n' >"$OUT/steady.supp"

# run SET OPTIONS CASE...: one process, "CASE cpu_ns=..." lines to $OUT/SET
# (NL, RL: launches per round and rounds, N and ROUNDS unless set)
run() {
    set_=$1 opts=$2; shift 2
    nl=${NL:-$N} rl=${RL:-$ROUNDS}
    pre="$dc $sim/libcudart.so.13"
    case $set_ in none*) pre=$sim/libcudart.so.13 ;; esac
    env -u DEVCHECK_OPTIONS PYTHONHASHSEED=0 SIMCUDA_DEVICES=2 LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="$pre" DEVCHECK_OPTIONS="$opts:log_path=$OUT/$set_.log" \
        "$PY" "$ROOT/bench/steady_loops.py" "$nl" "$rl" "$@" >"$OUT/$set_" 2>"$OUT/$set_.err" ||
        { echo "bench: the steady loops failed under $set_ (see $OUT/$set_.err)" >&2; exit 1; }
}
for s in $SETS; do
    case $s in
    none) run none "" triton_clean triton_host triton_peer torch_clean torch_peer ;;
    default) run default host_memory=warn triton_clean triton_host triton_peer torch_clean torch_peer ;;
    supp) run supp "suppressions=$OUT/steady.supp" triton_clean triton_peer torch_clean torch_peer ;;
    ignore) run ignore peer=ignore triton_clean triton_peer torch_clean torch_peer ;;
    *) echo "bench: unknown set $s" >&2; exit 2 ;;
    esac
done

for f in $FIRST; do
    case $f in
    torch) fcases="torch_clean torch_peer" ;;
    triton) fcases="triton_clean triton_peer" ;;
    *) echo "bench: unknown first-report case $f" >&2; exit 2 ;;
    esac
    k=0
    while [ $k -lt "$FIRSTRUNS" ]; do
        k=$((k + 1))
        NL=1 run "none.first.$f.$k" "" $fcases
        NL=1 run "first.$f.$k" "" $fcases
    done
done

calc() { awk "BEGIN { v = $1; printf \"%.${2:-0}f\", v }"; }
ns() { sed -n "s/^$2 cpu_ns=//p" "$OUT/$1"; }
has() { case " $SETS " in *" $1 "*) return 0 ;; esac; return 1; }
printf 'steady launches on the simulated GPUs under LD_PRELOAD (bench/steady_loops.py): CPU ns per launch,\n'
printf 'whole process, the minimum of %s rounds of %s; each set of options one process\n\n' "$ROUNDS" "$N"
has none || { echo "bench: steady.sh needs the none set" >&2; exit 2; }
printf '%-46s %9s %9s %11s %11s %7s\n' "case" "clean" "case" "none:clean" "none:case" "ratio"
fails=0
verdict() {     # verdict OK TEXT
    if [ "$1" = 1 ]; then printf 'PASS  %s\n' "$2"; else printf 'FAIL  %s\n' "$2"; fails=$((fails + 1)); fi
}
lines=
for r in default:triton_host:triton_clean:"Triton kernel, repeated host_memory warning" \
         default:triton_peer:triton_clean:"Triton kernel, legal peer traffic (warning)" \
         supp:triton_peer:triton_clean:"Triton kernel, suppressed peer_access" \
         ignore:triton_peer:triton_clean:"Triton kernel, ignored (peer=ignore)" \
         default:torch_peer:torch_clean:"torch copy_, legal peer traffic (warning)" \
         supp:torch_peer:torch_clean:"torch copy_, suppressed peer_access" \
         ignore:torch_peer:torch_clean:"torch copy_, ignored (peer=ignore)"; do
    s=${r%%:*}; rest=${r#*:}; case_=${rest%%:*}; rest=${rest#*:}; clean=${rest%%:*}; label=${rest#*:}
    has "$s" || continue
    a=$(ns "$s" "$case_") b=$(ns "$s" "$clean") na=$(ns none "$case_") nb=$(ns none "$clean")
    q=$(calc "$a / ($na + $b - $nb)" 2)
    printf '%-46s %9s %9s %11s %11s %7s\n' "$label" "$b" "$a" "$nb" "$na" "x$q"
    lines="$lines$(calc "$q <= 1.2")|$label: x$q the CPU time of the case treated as a clean launch ($a vs $na + $b - $nb ns, whole process) <= 1.2x
"
done
# the median over the FIRSTRUNS processes of SET.K's "CASE KEY=" in ms (firstms SET CASE KEY)
firstms() {
    for k in $(seq "$FIRSTRUNS"); do sed -n "s/^$2 $3=//p" "$OUT/$1.$k"; done |
        sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1e6 }'
}
if [ -n "$FIRST" ]; then
    printf '\nfirst calls (one launch) in fresh processes: CPU ms, whole process, median of %s processes\n\n' "$FIRSTRUNS"
    printf '%-38s %11s %9s %9s %11s %11s %9s\n' "first report" "clean:first" "first" "later" "none:first" "none:later" "report"
fi
for f in $FIRST; do
    case $f in
    torch) clean=torch_clean case_=torch_peer label="the first report in a torch process" ;;
    triton) clean=triton_clean case_=triton_peer label="the first report in a Triton process" ;;
    esac
    a=$(firstms "first.$f" $case_ first_ns) al=$(firstms "first.$f" $case_ cpu_ns)
    na=$(firstms "none.first.$f" $case_ first_ns) nal=$(firstms "none.first.$f" $case_ cpu_ns)
    b=$(firstms "first.$f" $clean first_ns)
    x=$(calc "($a - $al) - ($na - $nal)" 2)
    printf '%-38s %11s %9s %9s %11s %11s %9s\n' "$label" "$b" "$a" "$al" "$na" "$nal" "+$x"
    lines="$lines$(calc "$x <= 5")|$label (a legal peer warning): +$x ms CPU beyond its call without a report (($a - $al) - ($na - $nal) ms, whole process) <= 5 ms
"
done
printf '\n'
printf '%s' "$lines" | while IFS='|' read -r ok text; do verdict "$ok" "$text"; done
fails=$(printf '%s' "$lines" | grep -c '^0|' || true)
printf '%s steady budgets failed\n' "$fails"
