#!/bin/sh
# The regression guard of issue 13: under callgrind (instructions counted in
# the launch loop only), a launch of a kernel with 8 pointer parameters, and
# of one with a 64-byte struct of 8 pointers, costs at most 450
# instructions more than without devcheck (+381 since issue 38's cupti5:
# the thread's memo of its last clean launch, core/verdict/lmemo.h): with backend=interpose, with the
# default backend=both (whose CUPTI launch callbacks stay off while every
# call comes through the hooks: it must cost what interpose does, within 30)
# and with mode=off.  With backend=cupti, CUPTI's delivery of its callbacks
# is part of the difference: there the guard is on what it costs beyond a
# subscriber that enables the same callbacks and returns at once
# (bench/cupti_floor.c), which counts what devcheck makes the driver and
# the C library do as well as its own code; the whole difference is
# printed; the guard there is 600 (CUPTI_LIMIT), make bench's budget.  Then the repeated
# and suppressed findings of issue 25 (below).
. "$ROOT/tests/lib.sh"
command -v valgrind >/dev/null || { echo "skip: valgrind is not installed (mk/deps.sh installs it)"; exit 0; }
prog=$BUILD/bench/launches
floor=$BUILD/bench/libcuptifloor.so
[ -x "$prog" ] || fail "not built: $prog"
[ -e "$floor" ] || fail "not built: $floor"
N=400
LIMIT=450
# backend=cupti beyond its floor: +804 before issue 38's cupti4 (a launch's
# four callbacks decided first in on_callback), +~740 after, +540 with the
# memo of the last clean launch (cupti5)
CUPTI_LIMIT=600
# cg NAME ENV...: per-launch "section total own" lines in $TMPD/NAME
cg() {
    name=$1; shift
    env -u DEVCHECK_OPTIONS LD_LIBRARY_PATH="$SIM_DIR" "$@" valgrind --tool=callgrind --instr-atstart=no \
        --callgrind-out-file="$TMPD/cg.$name" "$prog" ptr8,struct64 $N 10 >"$TMPD/$name.out" 2>"$TMPD/$name.err" ||
        { tail "$TMPD/$name.err" >&2; fail "$name: the program failed under callgrind"; }
    for f in "$TMPD/cg.$name".[0-9]*; do
        s=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
        t=$(sed -n 's/^totals: *//p' "$f")
        o=$(awk -f "$ROOT/bench/own.awk" "$f" | awk '$1 ~ /libdevcheck\.so$/ { n += $2 } END { print n + 0 }')
        echo "$s $((t / N)) $((o / N))"
    done >"$TMPD/$name"
}
cg none
cg cuptifloor LD_PRELOAD="$floor"
base() { awk -v k="$1" '$1 == k { print $2 }' "$TMPD/${2:-none}"; }
for c in off interpose cupti both; do
    case $c in off) opts=mode=off ;; *) opts=backend=$c ;; esac
    cg "$c" LD_PRELOAD="$DEVCHECK_LIB" DEVCHECK_OPTIONS="$opts"
    for s in ptr8@10 struct64@10; do
        set -- $(awk -v k="$s" '$1 == k { print $2, $3 }' "$TMPD/$c")
        [ $# -eq 2 ] || fail "$c: no callgrind dump for $s"
        added=$(($1 - $(base "$s")))
        echo "$c $s: +$added instructions per launch ($2 in libdevcheck.so)"
        # beside the interposer no CUPTI callback comes for a launch it
        # checked: both costs what interpose does (one delivery: ~185)
        case $c in
        interpose) eval "interpose_${s%@*}=$added" ;;
        both) eval "i=\$interpose_${s%@*}"
              [ "$added" -le $((i + 30)) ] ||
                  fail "both $s: +$added instructions per launch, interpose +$i: CUPTI callbacks came for launches the interposer checked" ;;
        esac
        case $c in
        off|interpose|both) [ "$added" -le $LIMIT ] || fail "$c $s: a launch costs +$added instructions (> $LIMIT)" ;;
        *) beyond=$(($1 - $(base "$s" cuptifloor)))
           echo "$c $s: +$beyond beyond a CUPTI subscriber that does nothing"
           [ "$beyond" -le $CUPTI_LIMIT ] ||
               fail "$c $s: a launch costs +$beyond instructions beyond CUPTI's own delivery (> $CUPTI_LIMIT)" ;;
        esac
    done
done
# issues 25 and 38: a launch that repeats a finding already reported, or one
# already suppressed (8 findings in turn, 40 frames deep: more stacks than
# the thread's cache of allocation stacks keeps), costs at most 1.4x the
# instructions of a clean launch of the same run, with every backend (a
# margin over make bench's 1.2x budget; before issue 38: x1.43 .. x1.46): its stack is proven from the per-thread cache of
# finding stacks, not unwound, the repeat is decided by the thread's memo of
# the store's records (no lock), and nothing only a new finding needs is
# gathered.
printf '{\n   bench-suppressed\n   devcheck:peer_access\n   kernel:*k_suppressed*\n}\n' >"$TMPD/bench.supp"
for c in interpose cupti both; do
    env -u DEVCHECK_OPTIONS LD_LIBRARY_PATH="$SIM_DIR" LD_PRELOAD="$DEVCHECK_LIB" \
        DEVCHECK_OPTIONS="backend=$c:suppressions=$TMPD/bench.supp" valgrind --tool=callgrind --instr-atstart=no \
        --callgrind-out-file="$TMPD/cg.rep.$c" "$prog" ptr8,repeat,suppressed 200 10 >"$TMPD/rep.$c.out" 2>"$TMPD/rep.$c.err" ||
        { tail "$TMPD/rep.$c.err" >&2; fail "repeat $c: the program failed under callgrind"; }
    # 8 reported findings, 8 suppressed ones, every launch counted
    expect_grep 'SUMMARY: 8 findings \(0 errors, 8 warnings\) in 8 kernels; 908 launches checked.*; 304 suppressed$' "$TMPD/rep.$c.err"
    for f in "$TMPD/cg.rep.$c".[0-9]*; do
        sec=$(sed -n 's/^desc: Trigger: Client Request: //p' "$f")
        eval "rep_${sec%@*}=$(($(sed -n 's/^totals: *//p' "$f") / 200))"
    done
    for s in repeat:reported suppressed:suppressed; do
        eval "v=\$rep_${s%%:*}"
        echo "$c ${s%%:*}: $v instructions per launch, a clean launch $rep_ptr8"
        tenths=14
        [ $((10 * v)) -le $((tenths * rep_ptr8)) ] ||
            fail "$c: a launch repeating a ${s#*:} finding costs $v instructions, over $tenths/10 of a clean launch's ($rep_ptr8)"
    done
done
echo "ok: a launch costs at most $LIMIT added instructions ($CUPTI_LIMIT beyond CUPTI's own delivery with backend=cupti); a repeated or suppressed finding at most 1.4x a clean launch"
