# Shared by the Hugging Face tests (hf_sim.sh, hf_bugs.sh, hf_triton.sh,
# hf_temperature.sh, torch_libcalls.sh); source it after tests/lib.sh.  Needs the client
# virtualenv; nothing is downloaded (HF_HUB_OFFLINE=1).
need_pyenv
export HF_HUB_OFFLINE=1 TRANSFORMERS_VERBOSITY=error
CL=$ROOT/tests/clients
# canon FILE: pyfindings.py's canonical lines of a JSON report
canon() { python3 "$CL/pyfindings.py" "$1" || fail "no JSON report: $1"; }
# facts FILE: pyfindings.py --facts (kind, severity, call, operand, devices, user line)
facts() { python3 "$CL/pyfindings.py" --facts "$1" || fail "no JSON report: $1"; }
# at FILE PATTERN: FILE's base name and the line of PATTERN's first match
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
# launches NAME: the launches the summary of NAME's report counts
launches() { sed -n 's/.*"launches_checked":\([0-9]*\).*/\1/p' "$TMPD/$1.json"; }
# run NAME N PROGRAM [ARGS]: PROGRAM (from tests/clients/) under devcheck
# --sim N -> $TMPD/NAME.{out,err,json}; its exit status in $rc
run() {
    name=$1 n=$2; shift 2
    (cd "$CL" && "$DEVCHECK_BIN" --sim "$n" --json "$TMPD/$name.json" -- "$PY" "$@") \
        >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    rc=$?
}
# clean NAME WHAT: the run exited 0 with no finding and no report
clean() {
    [ $rc = 0 ] || { sed 's/^/    > /' "$TMPD/$1.err" "$TMPD/$1.out" >&2; fail "$2: exit status $rc"; }
    expect_eq "$2: findings" "summary errors=0 launches=$(launches "$1")" "$(canon "$TMPD/$1.json")"
    expect_grep '^devcheck: SUMMARY: 0 findings' "$TMPD/$1.err"
    expect_no_grep '^==devcheck==' "$TMPD/$1.err"
}
