#!/bin/sh
# The devcheck wrapper: argument errors exit 2 naming the option (and listing
# the valid ones for an unknown one); --help exits 0; the program's output,
# arguments and status pass through; without a driver (or with --sim N) it
# runs on the simulated GPUs and says so in its first line.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_BIN" "$DEVCHECK_LIB"
bad() {     # EXPECTED_WORD ARGS...
    _word=$1; shift
    run "$TMPD/w" "$DEVCHECK_BIN" "$@"
    expect_eq "devcheck $* : status" 2 "$(rc_of "$TMPD/w")"
    expect_eq "devcheck $* : stderr lines" 1 "$(wc -l <"$TMPD/w.err")"
    expect_grep "$_word" "$TMPD/w.err"
    [ -s "$TMPD/w.out" ] && fail "devcheck $*: wrote to stdout"
    return 0
}
bad "'--bogus'" --bogus -- true
expect_grep '--error-exitcode' "$TMPD/w.err"            # the valid ones are listed
bad "'--no-such=3'" --no-such=3 true
bad "print.limit" --print-limit abc -- true
bad "error.exitcode" --error-exitcode -- true
bad "mode" --mode sometimes -- true
bad "'-x'" -x -- true
bad "no program" --error-exitcode 3
bad "no program"
run "$TMPD/h" "$DEVCHECK_BIN" --help
expect_eq "--help status" 0 "$(rc_of "$TMPD/h")"
expect_grep '--error-exitcode' "$TMPD/h.out"
expect_grep '--log-file' "$TMPD/h.out"
# pass-through of arguments, stdout and status
run "$TMPD/p" "$DEVCHECK_BIN" --print-limit 5 -- sh -c 'printf "%s|" "$@"; exit 7' sh a 'b c' --error-exitcode
expect_eq "status" 7 "$(rc_of "$TMPD/p")"
expect_eq "stdout" "a|b c|--error-exitcode|" "$(cat "$TMPD/p.out")"
# signals pass through: the wrapper dies of the program's signal
run "$TMPD/s" "$DEVCHECK_BIN" -- sh -c 'kill -TERM $$'
expect_eq "signal status" 143 "$(rc_of "$TMPD/s")"
# the environment the program gets
run "$TMPD/e" env DEVCHECK_OPTIONS=verbosity=1 "$DEVCHECK_BIN" --sim 3 --json "$TMPD/x y.json" -- \
    sh -c 'echo "$DEVCHECK_OPTIONS"; echo "$LD_PRELOAD"; echo "$SIMCUDA_DEVICES"; echo "$LD_LIBRARY_PATH"'
expect_eq "sim status" 0 "$(rc_of "$TMPD/e")"
# the user's options first, then the wrapper's own: the tree's directory,
# and no JSON file of the program's own (the wrapper writes the merged one)
case $(sed -n 1p "$TMPD/e.out") in
    "verbosity=1:sim=3:json_path=\"$TMPD/x y.json\":tree_dir="*"/devcheck-tree."*":json_path=\"\"") ;;
    *) fail "DEVCHECK_OPTIONS: $(sed -n 1p "$TMPD/e.out")" ;;
esac
case $(sed -n 2p "$TMPD/e.out") in
    *"$(cd "$BUILD/lib" && pwd -P)/libdevcheck.so $(cd "$SIM_DIR" && pwd -P)/libcudart.so.13"*) ;;
    *) fail "LD_PRELOAD lacks libdevcheck.so followed by the sim's libcudart.so.13: $(sed -n 2p "$TMPD/e.out")" ;;
esac
expect_eq "SIMCUDA_DEVICES" 3 "$(sed -n 3p "$TMPD/e.out")"
case $(sed -n 4p "$TMPD/e.out") in
    "$(cd "$SIM_DIR" 2>/dev/null && pwd -P)"*) ;;
    *) fail "LD_LIBRARY_PATH does not start with the sim: $(sed -n 4p "$TMPD/e.out")" ;;
esac
expect_grep '^devcheck: running on 3 simulated GPUs \(.*, its libcudart.so.13 preloaded\)$' "$TMPD/e.err"
expect_eq "first stderr line" 1 "$(grep -n 'simulated GPUs' "$TMPD/e.err" | cut -d: -f1)"
# no driver on this machine: the sim by default, 4 devices, said first
if ! env LD_LIBRARY_PATH= sh -c 'ldconfig -p 2>/dev/null | grep -q "libcuda.so.1 "'; then
    run "$TMPD/n" env -u SIMCUDA_DEVICES LD_LIBRARY_PATH= "$DEVCHECK_BIN" -- sh -c 'echo "$SIMCUDA_DEVICES"'
    expect_eq "no-driver SIMCUDA_DEVICES" 4 "$(cat "$TMPD/n.out")"
    expect_eq "no-driver notice" \
        "devcheck: no NVIDIA driver found; running on 4 simulated GPUs (build/sim, its libcudart.so.13 preloaded)" \
        "$(cd "$ROOT" && sed -n 1p "$TMPD/n.err" | sed "s|(.*/sim,|(build/sim,|")"
fi
# an invalid DEVCHECK_OPTIONS in the environment: one line, left out; the
# command line's options still reach the library
run "$TMPD/v" env DEVCHECK_OPTIONS=bogus_key=1 "$DEVCHECK_BIN" --sim 2 --print-limit 3 -- sh -c 'echo "$DEVCHECK_OPTIONS"'
expect_eq "invalid env: status" 0 "$(rc_of "$TMPD/v")"
case $(cat "$TMPD/v.out") in
    "sim=2:print_limit=3:tree_dir="*) ;;
    *) fail "invalid env: DEVCHECK_OPTIONS: $(cat "$TMPD/v.out")" ;;
esac
expect_eq "invalid env: lines naming it" 1 "$(grep -c 'bogus_key' "$TMPD/v.err")"
# sim= in the environment counts too
run "$TMPD/v" env DEVCHECK_OPTIONS=sim=2 "$DEVCHECK_BIN" -- sh -c 'echo "$SIMCUDA_DEVICES"'
expect_eq "env sim: SIMCUDA_DEVICES" 2 "$(cat "$TMPD/v.out")"
