# Helpers for the runtime's shell tests (sim/tests/rt_*.sh); source after
# tests/lib.sh.
RT_BIN=$BUILD/tests/sim
export SIMCUDA_DEVICES=${SIMCUDA_DEVICES:-4}

# rt_run NAME [ARGS...]: run test program NAME on the sim; it must exit 0,
# print "ok"-style output and no loader or runtime warnings.  Output in
# $TMPD/NAME.out.
rt_run() {
    name=$1; shift
    out=$TMPD/$name.out
    on_sim "$RT_BIN/$name" "$@" >"$out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || { sed 's/^/    > /' "$out" >&2; fail "$name $* exited $rc"; }
    expect_no_grep 'no version information|version .* not found' "$out"
    expect_no_grep '^simcuda runtime:' "$out"
}
