#!/bin/sh
# `make bench`: devcheck's cost per launch and per allocation, side by side
# in one run with no devcheck ("none"), a pass-through shim on the same entry
# points ("floor", bench/floor.c), a CUPTI subscriber that enables what
# backend=cupti enables and returns at once ("cuptifloor",
# bench/cupti_floor.c), mode=off and the three backends:
#  - instructions (callgrind, counted in the measured loops only: the program
#    toggles instrumentation around them) per launch of a kernel with 8
#    pointer parameters and of one with a 64-byte struct of pointers, at 10,
#    10,000 and 1,000,000 live allocations of mixed sizes; per cudaMalloc +
#    cudaFree 0 and 40 frames deep; per PyTorch caching-allocator block
#    handed out and taken back (bench/c10_stub.c); per launch that repeats a finding already
#    reported, and one already suppressed (8 findings in turn, 40 frames
#    deep), beside a clean launch in the same run; the same from inside a
#    stripped library (bench/steady_lib.cu: a repeated host_memory warning,
#    legal peer traffic, suppressed, ignored by option) beside its clean
#    launch;
#  - bytes per live allocation (malloc's heap and the resident set, growing
#    from 10,000 to 1,000,000 live allocations);
#  - CPU time per launch and per allocation+free: configurations run in
#    turn, TREPEAT rounds, each run pinned to one CPU (taskset, when there:
#    no migration between cores inside a run), the minimum of each;
#  - the registry's lookups from 1, 2 and 4 threads (bench/regbench.c: the
#    core's registry directly; the sim serialises launches);
#  - devcheck's own memory in a torch process (bench/torch_rss.py: peak RSS
#    without devcheck and under the wrapper; issue 27);
#  - the first report of a new finding (issue 38): CPU time of the whole
#    process across one launch that makes the process's first finding, the
#    next new one, and a new kernel's clean first launch (bench/launches.cu
#    first, a fresh process per round, the minimum of REPEAT rounds).
# Then each budget of issues 13, 25 and 38 as a PASS/FAIL line: what
# devcheck adds (backend=cupti over the cuptifloor configuration, the sim's
# CUPTI's own deliveries not counted: see base_of below).  Runs on the simulated
# GPUs.  Not a test (times vary); tests/bench/ checks that it runs and that a
# launch stays under a margin of instructions.
#
# Environment: BUILD (build), N (launches per callgrind section, 2000),
# TN (per timed section, 20000), REPEAT (first-report rounds, 5), TREPEAT
# (CPU-time rounds, 11), BENCH_CPU (the CPU they run on: the last one this
# process may use), LIVES ("10 10000
# 1000000"), CONFIGS (all seven), OUT (the directory for the runs' files).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
N=${N:-2000}
TN=${TN:-20000}
REPEAT=${REPEAT:-5}
TREPEAT=${TREPEAT:-11}
LIVES=${LIVES:-10 10000 1000000}
CONFIGS=${CONFIGS:-none floor cuptifloor off interpose cupti both}
OUT=${OUT:-$BUILD/bench/out}
prog=$BUILD/bench/launches
floor=$BUILD/bench/libfloor.so
cuptifloor=$BUILD/bench/libcuptifloor.so
dc=$BUILD/lib/libdevcheck.so
command -v valgrind >/dev/null || { echo "bench: needs valgrind (callgrind): apt-get install valgrind" >&2; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"
first_live=${LIVES%% *}
last_live=${LIVES##* }

# cfg_env CONFIG: the environment of a configuration, one VAR=VALUE a line.
cfg_env() {
    echo "LD_LIBRARY_PATH=$BUILD/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    case $1 in
    none) ;;
    floor) echo "LD_PRELOAD=$floor" ;;
    cuptifloor) echo "LD_PRELOAD=$cuptifloor" ;;
    off) echo "LD_PRELOAD=$dc"; echo "DEVCHECK_OPTIONS=mode=off" ;;
    interpose|cupti|both) echo "LD_PRELOAD=$dc"; echo "DEVCHECK_OPTIONS=backend=$1" ;;
    *) echo "bench: unknown configuration $1" >&2; exit 2 ;;
    esac
}
# in_cfg CONFIG CMD...: runs CMD in the configuration's environment.
in_cfg() {
    c=$1; shift
    # shellcheck disable=SC2046
    (IFS='
'; exec env -u LD_PRELOAD -u DEVCHECK_OPTIONS $(cfg_env "$c") "$@")
}

# --- instructions: callgrind ---------------------------------------------------
# cg CONFIG TAG SECTIONS LIVE...: one callgrind run; each measured section is
# a dump, appended to $OUT/ir.CONFIG$IRS as "NAME@LIVE total own".
# EXTRA_OPTS: more DEVCHECK_OPTIONS for the run.
IRS=
EXTRA_OPTS=
cg() {
    c=$1; tag=$2; sections=$3; shift 3
    rm -f "$OUT/cg.$tag.$c".*
    in_cfg "$c" env ${EXTRA_OPTS:+DEVCHECK_OPTIONS="$(cfg_env "$c" | sed -n 's/^DEVCHECK_OPTIONS=//p')${EXTRA_OPTS}"} valgrind --tool=callgrind --instr-atstart=no --dump-instr=no \
        --callgrind-out-file="$OUT/cg.$tag.$c" "$prog" "$sections" "$N" "$@" \
        >"$OUT/cg.$tag.$c.stdout" 2>"$OUT/cg.$tag.$c.stderr" ||
        { echo "bench: callgrind run $tag failed under $c (see $OUT/cg.$tag.$c.stderr)" >&2; exit 1; }
    for f in "$OUT/cg.$tag.$c".[0-9]*; do
        [ "${f%.stdout}" = "$f" ] && [ "${f%.stderr}" = "$f" ] || continue
        name=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
        [ -n "$name" ] || continue
        total=$(sed -n 's/^totals: *//p' "$f")
        own=$(awk -f "$ROOT/bench/own.awk" "$f" | awk '$1 ~ /libdevcheck\.so$/ { n += $2 } END { print n + 0 }')
        echo "$name $total $own"
    done >>"$OUT/ir.$c$IRS"
}
# the suppressions of the suppressed section's findings
printf '{\n   bench-suppressed\n   devcheck:peer_access\n   kernel:*k_suppressed*\n}\n' >"$OUT/bench.supp"
for c in $CONFIGS; do
    : >"$OUT/ir.$c"
    : >"$OUT/ir.$c.rep"
    # shellcheck disable=SC2086
    cg "$c" launch ptr8,struct64 $LIVES
    cg "$c" alloc alloc0,alloc40,block "$first_live"
    # repeated findings, beside a clean launch of the same run
    # (and a stripped library's: clean, a repeated host_memory warning, legal peer traffic, suppressed)
    case $c in off|interpose|cupti|both) EXTRA_OPTS=":suppressions=$OUT/bench.supp:host_memory=warn" ;; esac
    IRS=.rep cg "$c" repeat ptr8,repeat,suppressed,libclean,librepeat,libpeer,libsuppressed "$first_live"
    EXTRA_OPTS=
    # the same peer reads ignored by option (peer=ignore), beside a clean launch
    case $c in off|interpose|cupti|both) EXTRA_OPTS=":peer=ignore" ;; esac
    IRS=.ign cg "$c" ignored ptr8,repeat,libclean,libpeer "$first_live"
    EXTRA_OPTS=
done
# ir CONFIG NAME@LIVE [SUFFIX]: instructions per operation; own: of which in libdevcheck.so
ir() { awk -v k="$2" -v n="$N" '$1 == k { printf "%.0f", $2 / n; f = 1 } END { if (!f) print "nan" }' "$OUT/ir.$1${3:-}"; }
own() { awk -v k="$2" -v n="$N" '$1 == k { printf "%.0f", $3 / n; f = 1 } END { if (!f) print "nan" }' "$OUT/ir.$1${3:-}"; }

# --- bytes per live allocation ----------------------------------------------------
mem_lives="10000 $last_live"
[ "$last_live" -gt 10000 ] || mem_lives=$last_live
for c in $CONFIGS; do
    # shellcheck disable=SC2086
    in_cfg "$c" "$prog" mem 0 $mem_lives >"$OUT/mem.$c" 2>"$OUT/mem.$c.stderr" ||
        { echo "bench: memory run failed under $c (see $OUT/mem.$c.stderr)" >&2; exit 1; }
done
# mem CONFIG heap|rss: bytes per allocation while the live set grew to its last size
mem() { awk -v k="mem@$last_live" -v f="$2" '$1 == k { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) print kv[2] } }' "$OUT/mem.$1"; }

# --- CPU time: interleaved rounds, minima ---------------------------------------
# Each run pinned to one CPU: the process's CPU time (every thread) is
# measured, and a run that migrates between cores (a shared machine's
# scheduler) pays cold caches each time; unpinned, 5 rounds on a loaded
# 2-core machine gave interpose +151 / +214 ns per launch (ptr8 / struct64)
# where pinned rounds give +~100 / +~55 for the same +~580 instructions.
pin=
if command -v taskset >/dev/null 2>&1; then
    cpu=${BENCH_CPU:-$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' | tail -n 1 | sed 's/.*-//')}
    [ -n "$cpu" ] && pin="taskset -c $cpu"
fi
r=0
while [ $r -lt "$TREPEAT" ]; do
    for c in $CONFIGS; do
        in_cfg "$c" $pin "$prog" ptr8,struct64,alloc0,alloc40 "$TN" "$first_live" >>"$OUT/time.$c" 2>>"$OUT/time.$c.stderr" ||
            { echo "bench: timed run failed under $c (see $OUT/time.$c.stderr)" >&2; exit 1; }
    done
    r=$((r + 1))
done
# ns CONFIG NAME@LIVE: the minimum CPU ns per operation
ns() { awk -v k="$2" '$1 == k { split($2, kv, "="); if (m == "" || kv[2] + 0 < m) m = kv[2] + 0 } END { printf "%.0f", m }' "$OUT/time.$1"; }

# --- the first report of a new finding (issue 38) -------------------------------------
# bench/launches.cu's first section in a fresh process, REPEAT rounds: the
# CPU time of the whole process across the launch that makes the process's
# first finding (first), the next new one (second), and a new kernel's clean
# first launch beside them (firstclean); the minimum of each.
r=0
while [ $r -lt "$REPEAT" ]; do
    for c in $CONFIGS; do
        in_cfg "$c" "$prog" first 1 "$first_live" >>"$OUT/first.$c" 2>>"$OUT/first.$c.stderr" ||
            { echo "bench: first-report run failed under $c (see $OUT/first.$c.stderr)" >&2; exit 1; }
    done
    r=$((r + 1))
done
# fns CONFIG NAME: the minimum CPU ns of that launch
fns() { awk -v k="$2@$first_live" '$1 == k { split($2, kv, "="); if (m == "" || kv[2] + 0 < m) m = kv[2] + 0 } END { printf "%.0f", m }' "$OUT/first.$1"; }

# --- registry thread scaling ---------------------------------------------------------
"$BUILD/bench/regbench" >"$OUT/regbench" 2>&1 ||
    { echo "bench: regbench failed (see $OUT/regbench)" >&2; exit 1; }

# --- the table -------------------------------------------------------------------------
calc() { awk "BEGIN { v = $1; printf \"%.${2:-0}f\", v }"; }
has() { case " $CONFIGS " in *" $1 "*) return 0 ;; esac; return 1; }
printf 'devcheck bench on the simulated GPUs: %s launches or allocations per callgrind section,\n' "$N"
printf 'CPU times the minimum of %s interleaved rounds of %s%s; added = configuration - none\n' "$TREPEAT" "$TN" "${pin:+ (${pin})}"
has cuptifloor && printf 'budgets: what devcheck adds; backend=cupti over cuptifloor (the sim'"'"'s CUPTI delivering the same callbacks to a subscriber that does nothing), the others over none\n'
printf '\n'
printf '%-38s' "instructions per operation"
for c in $CONFIGS; do printf '%11s' "$c"; done
printf '\n'
row() {     # row LABEL NAME@LIVE [SUFFIX]
    printf '%-38s' "$1"
    for c in $CONFIGS; do
        v=$(ir "$c" "$2" "${3:-}")
        if [ "$c" = none ]; then printf '%11s' "$v"; else printf '%11s' "+$(calc "$v - $(ir none "$2" "${3:-}")")"; fi
    done
    printf '\n'
}
orow() {    # orow LABEL NAME@LIVE: the instructions run in libdevcheck.so itself
    printf '%-38s' "$1"
    for c in $CONFIGS; do printf '%11s' "$(own "$c" "$2")"; done
    printf '\n'
}
for live in $LIVES; do
    row "launch, 8 pointers, $live live" "ptr8@$live"
    row "launch, 64-byte struct, $live live" "struct64@$live"
done
row "cudaMalloc+cudaFree, 0 frames" "alloc0@$first_live"
row "cudaMalloc+cudaFree, 40 frames" "alloc40@$first_live"
row "PyTorch block handed out+taken back" "block@$first_live"
row "launch repeating a reported finding" "repeat@$first_live" .rep
row "launch repeating a suppressed finding" "suppressed@$first_live" .rep
row "  clean launch of the same run" "ptr8@$first_live" .rep
row "launch whose finding is ignored (peer=ignore)" "repeat@$first_live" .ign
row "  clean launch of the same run" "ptr8@$first_live" .ign
row "stripped library: clean launch" "libclean@$first_live" .rep
row "  repeating a reported finding" "librepeat@$first_live" .rep
row "  legal peer traffic (a peer warning)" "libpeer@$first_live" .rep
row "  repeating a suppressed finding" "libsuppressed@$first_live" .rep
row "  ignored (peer=ignore)" "libpeer@$first_live" .ign
row "  clean launch of that run" "libclean@$first_live" .ign
orow "  in libdevcheck.so: 8 pointers" "ptr8@$first_live"
orow "  in libdevcheck.so: 64-byte struct" "struct64@$first_live"
orow "  in libdevcheck.so: malloc+free" "alloc0@$first_live"
orow "  in libdevcheck.so: PyTorch block" "block@$first_live"
printf '%-38s' "bytes per live allocation (heap)"
for c in $CONFIGS; do
    v=$(mem "$c" heap)
    if [ "$c" = none ]; then printf '%11s' "$v"; else printf '%11s' "+$(calc "$v - $(mem none heap)")"; fi
done
printf '\n%-38s' "bytes per live allocation (RSS)"
for c in $CONFIGS; do
    v=$(mem "$c" rss)
    if [ "$c" = none ]; then printf '%11s' "$v"; else printf '%11s' "+$(calc "$v - $(mem none rss)")"; fi
done
printf '\n\n%-38s' "CPU ns per operation"
for c in $CONFIGS; do printf '%11s' "$c"; done
printf '\n'
trow() {
    printf '%-38s' "$1"
    for c in $CONFIGS; do
        v=$(ns "$c" "$2")
        if [ "$c" = none ]; then printf '%11s' "$v"; else printf '%11s' "x$(calc "$v / $(ns none "$2")" 2)"; fi
    done
    printf '\n'
}
trow "launch, 8 pointers" "ptr8@$first_live"
trow "launch, 64-byte struct" "struct64@$first_live"
trow "cudaMalloc+cudaFree, 0 frames" "alloc0@$first_live"
trow "cudaMalloc+cudaFree, 40 frames" "alloc40@$first_live"
printf '\n%-38s' "CPU us, one launch (whole process)"
for c in $CONFIGS; do printf '%11s' "$c"; done
printf '\n'
frow() {
    printf '%-38s' "$1"
    for c in $CONFIGS; do printf '%11s' "$(calc "$(fns "$c" "$2") / 1000" 1)"; done
    printf '\n'
}
frow "a new kernel's first launch, clean" firstclean
frow "the process's first finding" first
frow "a second new finding" second
printf '\nregistry lookups (bench/regbench.c: %s)\n' "$(sed -n 's/^setup: //p' "$OUT/regbench")"
grep '^threads=' "$OUT/regbench" | sed 's/^/  /'
printf '\n'

# --- budgets (issue 13) -------------------------------------------------------------------
fails=0
verdict() {     # verdict OK TEXT
    if [ "$1" = 1 ]; then printf 'PASS  %s\n' "$2"; else printf 'FAIL  %s\n' "$2"; fails=$((fails + 1)); fi
}
backends=""
for b in interpose cupti both; do has "$b" && backends="$backends $b"; done
# What a budget measures: what devcheck adds (issue 38).  For interpose and
# both that is the configuration over none.  backend=cupti is measured over
# the cuptifloor configuration (when it runs): the sim's CUPTI delivering
# the same callbacks to a subscriber that returns at once costs +~800
# instructions per launch and +~1200 per allocation+free before devcheck
# does anything; that is the simulator's CUPTI, not devcheck, and not what a
# real GPU's CUPTI costs, so it is printed (the table, the info line below)
# and not charged to devcheck.  Everything devcheck makes the driver, the
# sim's CUPTI or the C library do beyond that floor is charged.
# base_of BACKEND -> the configuration its budget rows are measured over;
# tag_of BACKEND -> how a verdict line names it
base_of() { if [ "$1" = cupti ] && has cuptifloor; then echo cuptifloor; else echo none; fi; }
tag_of() { if [ "$(base_of "$1")" = cuptifloor ]; then echo "$1 over cuptifloor"; else echo "$1"; fi; }
# the worst backend and live count of an instruction figure, and what of it
# ran in libdevcheck.so (the rest: the platform, e.g. CUPTI's deliveries)
worst() {  # worst SECTION -> "added backend live own"
    best=""; for b in $backends; do for live in $LIVES; do
        a=$(calc "$(ir "$b" "$1@$live") - $(ir "$(base_of "$b")" "$1@$live")")
        if [ -z "$best" ] || [ "$a" -gt "${best%% *}" ]; then best="$a $b $live"; fi
    done; done
    set -- $best "$1"
    echo "$1 $2 $3 $(own "$2" "$4@$3")"
}
if has none && [ -n "$backends" ]; then
    for s in ptr8:"8 pointer params" struct64:"one 64-byte by-value struct"; do
        set -- $(worst "${s%%:*}")
        verdict "$([ "$1" -le 600 ] && echo 1)" \
            "added per launch, ${s#*:}: +$1 instr (worst: backend=$(tag_of "$2"), $3 live; $4 in libdevcheck.so) <= 600"
    done
    worst_ratio=""
    for b in $backends; do for s in ptr8 struct64; do
        a0=$(calc "$(ir "$b" "$s@$first_live") - $(ir "$(base_of "$b")" "$s@$first_live")")
        a1=$(calc "$(ir "$b" "$s@$last_live") - $(ir "$(base_of "$b")" "$s@$last_live")")
        t=$(calc "($(ir "$b" "$s@$last_live") / $(ir "$b" "$s@$first_live"))" 3)
        q=$(calc "$a1 / ($a0 > 0 ? $a0 : 1)" 3)
        if [ -z "$worst_ratio" ] || [ "$(calc "$q > ${worst_ratio%% *}")" = 1 ]; then worst_ratio="$q $t $b $s $a0 $a1"; fi
    done; done
    set -- $worst_ratio
    verdict "$([ "$(calc "$1 <= 1.2")" = 1 ] && echo 1)" \
        "live allocations $first_live -> $last_live: added instr x$1 (+$5 -> +$6; whole launch x$2; worst: backend=$(tag_of "$3"), $4) <= 1.2x"
    for f in 0 40; do
        w=""; for b in $backends; do
            a=$(calc "$(ir "$b" "alloc$f@$first_live") - $(ir "$(base_of "$b")" "alloc$f@$first_live")")
            if [ -z "$w" ] || [ "$a" -gt "${w%% *}" ]; then w="$a $b"; fi
        done
        set -- $w
        verdict "$([ "$1" -le 2000 ] && echo 1)" \
            "added per allocation+free with stack, $f extra frames: +$1 instr (worst: backend=$(tag_of "$2"); $(own "$2" "alloc$f@$first_live") in libdevcheck.so) <= 2000"
    done
    w=""; for b in $backends; do
        h=$(calc "$(mem "$b" heap) - $(mem none heap)"); s=$(calc "$(mem "$b" rss) - $(mem none rss)")
        m=$h; [ "$s" -gt "$m" ] && m=$s
        if [ -z "$w" ] || [ "$m" -gt "${w%% *}" ]; then w="$m $b $h $s"; fi
    done
    set -- $w
    verdict "$([ "$1" -le 96 ] && echo 1)" "memory per live allocation at $last_live: $1 B (heap +$3, RSS +$4; worst: backend=$2) <= 96 B"
    for s in ptr8:"8 pointer params":150 struct64:"one 64-byte struct":150 alloc0:"allocation+free":2000 alloc40:"allocation+free, 40 frames":2000; do
        name=${s%%:*}; rest=${s#*:}; label=${rest%:*}; lim=${rest##*:}
        w=""; for b in $backends; do
            a=$(calc "$(ns "$b" "$name@$first_live") - $(ns "$(base_of "$b")" "$name@$first_live")")
            if [ -z "$w" ] || [ "$a" -gt "${w%% *}" ]; then w="$a $b"; fi
        done
        set -- $w
        verdict "$([ "$1" -le "$lim" ] && echo 1)" "CPU time added, $label: +$1 ns (worst: backend=$(tag_of "$2")) <= $lim ns"
    done
fi
# issues 25 and 38: a repeated, suppressed or ignored finding costs what a
# clean launch costs, within 1.2x the instructions of the clean launch of
# the same run
# (the stripped library's against its own clean launch)
for s in repeat:ptr8:.rep:"launch repeating a reported finding" suppressed:ptr8:.rep:"launch repeating a suppressed finding" \
         repeat:ptr8:.ign:"launch whose finding is ignored by option (peer=ignore)" \
         librepeat:libclean:.rep:"stripped library's launch repeating a reported finding" \
         libpeer:libclean:.rep:"stripped library's launch with legal peer traffic (a peer warning)" \
         libsuppressed:libclean:.rep:"stripped library's launch repeating a suppressed finding" \
         libpeer:libclean:.ign:"stripped library's launch whose finding is ignored by option (peer=ignore)"; do
    name=${s%%:*}; rest=${s#*:}; clean=${rest%%:*}; rest=${rest#*:}; sfx=${rest%%:*}; label=${rest#*:}
    w=""; for b in $backends; do
        q=$(calc "$(ir "$b" "$name@$first_live" "$sfx") / $(ir "$b" "$clean@$first_live" "$sfx")" 2)
        if [ -z "$w" ] || [ "$(calc "$q > ${w%% *}")" = 1 ]; then w="$q $b"; fi
    done
    [ -n "$w" ] || continue
    set -- $w
    verdict "$([ "$(calc "$1 <= 1.2")" = 1 ] && echo 1)" \
        "$label: x$1 the instructions of a clean launch (worst: backend=$2; $(ir "$2" "$name@$first_live" "$sfx") vs $(ir "$2" "$clean@$first_live" "$sfx")) <= 1.2x"
done
# issue 38: the first report of a new finding costs <= 1 ms of CPU (the
# whole process) beyond a new kernel's clean first launch
if [ -n "$backends" ]; then
    for s in first:"the first report of a new finding (the process's first)" second:"the report of a second new finding"; do
        w=""; for b in $backends; do
            a=$(calc "$(fns "$b" "${s%%:*}") - $(fns "$b" firstclean)")
            if [ -z "$w" ] || [ "$a" -gt "${w%% *}" ]; then w="$a $b"; fi
        done
        set -- $w
        verdict "$([ "$1" -le 1000000 ] && echo 1)" \
            "${s#*:}: +$(calc "$1 / 1000000" 2) ms CPU beyond a clean first launch (worst: backend=$2; whole process) <= 1 ms"
    done
fi
if has none && has floor; then
    printf 'info  the floor (pass-through shim): +%s instr per launch (8 pointers), +%s per allocation+free\n' \
        "$(calc "$(ir floor "ptr8@$first_live") - $(ir none "ptr8@$first_live")")" \
        "$(calc "$(ir floor "alloc0@$first_live") - $(ir none "alloc0@$first_live")")"
fi
if has none && has cuptifloor; then
    cf_l=$(calc "$(ir cuptifloor "ptr8@$first_live") - $(ir none "ptr8@$first_live")")
    cf_a=$(calc "$(ir cuptifloor "alloc0@$first_live") - $(ir none "alloc0@$first_live")")
    more=""
    has cupti && more=$(printf '; backend=cupti adds +%s and +%s beyond it' \
        "$(calc "$(ir cupti "ptr8@$first_live") - $(ir cuptifloor "ptr8@$first_live")")" \
        "$(calc "$(ir cupti "alloc0@$first_live") - $(ir cuptifloor "alloc0@$first_live")")")
    printf 'info  the floor under backend=cupti (a CUPTI subscriber that enables the same callbacks and returns at once): +%s instr per launch (8 pointers), +%s per allocation+free%s\n' \
        "$cf_l" "$cf_a" "$more"
fi
# issue 27: a PyTorch block (bench/c10_stub.c's two reports, recorded with
# its stack) against the record of a plain allocation (cudaMalloc+cudaFree)
if has none && [ -n "$backends" ]; then
    w=""; for b in $backends; do
        a=$(calc "$(ir "$b" "block@$first_live") - $(ir none "block@$first_live")")
        if [ -z "$w" ] || [ "$a" -gt "${w%% *}" ]; then w="$a $b"; fi
    done
    set -- $w
    m=$(calc "$(ir "$2" "alloc0@$first_live") - $(ir none "alloc0@$first_live")")
    printf 'info  a PyTorch block handed out and taken back: +%s instr (worst: backend=%s), x%s those of a cudaMalloc+cudaFree record (+%s)\n' \
        "$1" "$2" "$(calc "$1 / ($m > 0 ? $m : 1)" 2)" "$m"
fi
set -- $(sed -n 's/^scaling: //p' "$OUT/regbench")
verdict "$([ "$(calc "$1 <= 1.2")" = 1 ] && echo 1)" \
    "registry thread scaling: CPU time per lookup with 2 threads x$1 of 1 thread (4 threads x$2) <= 1.2x"
set -- $(sed -n 's/^scaling_rwlock: //p' "$OUT/regbench")
printf 'info  the same lookups under one process-wide rwlock (the old registry'"'"'s scheme): 2 threads x%s, 4 threads x%s\n' "$1" "$2"
# --- issue 27: devcheck's own memory in a torch process -------------------------------------
# bench/torch_rss.py on the sim without devcheck and under the wrapper (the
# Python clients' virtualenv, mk/pyenv.sh; skipped without it, or TORCH=0).
# The budget: 32 MiB, which includes here what devcheck keeps per kernel
# PyTorch registers (every kernel of its wheel, ~48,000: ~160 B each) and per
# live allocation.
if [ "${TORCH:-1}" != 0 ] && pyenv=$(sh "$ROOT/mk/pyenv.sh" 2>/dev/null); then
    trss() {    # trss none|devcheck -> "hwm rss anon file" in KiB, the run of the smaller peak of 2
        for r in 1 2; do
            if [ "$1" = none ]; then
                env LD_LIBRARY_PATH="$BUILD/sim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" LD_PRELOAD="$BUILD/sim/libcudart.so.13" \
                    SIMCUDA_DEVICES=2 "$pyenv/bin/python" "$ROOT/bench/torch_rss.py"
            else
                "$BUILD/bin/devcheck" --sim 2 -- "$pyenv/bin/python" "$ROOT/bench/torch_rss.py"
            fi 2>>"$OUT/torch_rss.$1.stderr" | sed -n 's/^torch_rss: hwm=\([0-9]*\) rss=\([0-9]*\) anon=\([0-9]*\) file=\([0-9]*\)$/\1 \2 \3 \4/p'
        done | sort -n | head -n 1
    }
    set -- $(trss none) $(trss devcheck)
    if [ $# = 8 ]; then
        add=$(calc "($5 - $1) / 1024" 1)
        printf 'info  torch process on the sim (bench/torch_rss.py): peak RSS %s MiB without devcheck, %s MiB under the wrapper (current %s -> %s MiB: anonymous %+.1f, file-backed %+.1f)\n' \
            "$(calc "$1 / 1024" 1)" "$(calc "$5 / 1024" 1)" "$(calc "$2 / 1024" 1)" "$(calc "$6 / 1024" 1)" \
            "$(calc "($7 - $3) / 1024" 1)" "$(calc "($8 - $4) / 1024" 1)"
        verdict "$([ "$(calc "$add <= 32")" = 1 ] && echo 1)" "devcheck's own memory in a torch process: peak RSS +$add MiB <= 32 MiB"
    else
        verdict 0 "devcheck's own memory in a torch process: bench/torch_rss.py did not run (see $OUT/torch_rss.*.stderr)"
    fi
else
    printf 'info  torch process memory: skipped (no Python client environment, or TORCH=0)\n'
fi
printf '%s budgets failed\n' "$fails"
