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
# Not a test (tests/bench/torch_runs.sh runs the default process small).
#
# Environment: BUILD (build), N (launches per round, 2000), ROUNDS (5), PY
# (the python with torch and triton; default: mk/pyenv.sh's), SETS (none
# default supp ignore), OUT.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
N=${N:-2000}
ROUNDS=${ROUNDS:-5}
SETS=${SETS:-none default supp ignore}
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
run() {
    set_=$1 opts=$2; shift 2
    pre="$dc $sim/libcudart.so.13"
    [ "$set_" = none ] && pre=$sim/libcudart.so.13
    env -u DEVCHECK_OPTIONS PYTHONHASHSEED=0 SIMCUDA_DEVICES=2 LD_LIBRARY_PATH="$sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="$pre" DEVCHECK_OPTIONS="$opts:log_path=$OUT/$set_.log" \
        "$PY" "$ROOT/bench/steady_loops.py" "$N" "$ROUNDS" "$@" >"$OUT/$set_" 2>"$OUT/$set_.err" ||
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
printf '\n'
printf '%s' "$lines" | while IFS='|' read -r ok text; do verdict "$ok" "$text"; done
fails=$(printf '%s' "$lines" | grep -c '^0|' || true)
printf '%s steady budgets failed\n' "$fails"
