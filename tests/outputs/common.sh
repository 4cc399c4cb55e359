# Helpers of the output tests (sourced by tests/outputs/*.sh, not a test).
. "$ROOT/tests/lib.sh"
OP=$BUILD/tests/outputs
export SIMCUDA_DEVICES=4
unset DEVCHECK_OPTIONS DEVCHECK_ROOT_PID SIMCUDA_PEER SIMCUDA_HMM SIMCUDA_FAIL SIMCUDA_MEM_MB RANK SLURM_PROCID \
      OMPI_COMM_WORLD_RANK PMI_RANK

need() { for f in "$@"; do [ -e "$f" ] || fail "not built: $f (run make first)"; done; }
# run PREFIX CMD...: stdout, stderr and exit status in PREFIX.out/.err/.rc.
run() {
    _p=$1; shift
    "$@" >"$_p.out" 2>"$_p.err"
    echo $? >"$_p.rc"
}
rc_of() { cat "$1.rc"; }
# py EXPR-SCRIPT ARGS...: a Python snippet (stdlib only) over the files.
py() { _s=$1; shift; python3 -c "$_s" "$@"; }
# count_lines PATTERN FILE
count_lines() { grep -Ec -- "$1" "$2" || true; }
