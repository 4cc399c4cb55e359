# Helpers of the end-to-end tests (sourced by tests/e2e/*.sh, not a test).
# The tests run the samples on 4 simulated GPUs under devcheck and compare the
# canonical findings (findings.py) with tests/e2e/expected/NAME.txt.
. "$ROOT/tests/lib.sh"
E2E=$ROOT/tests/e2e
export SIMCUDA_DEVICES=4
unset DEVCHECK_OPTIONS SIMCUDA_PEER SIMCUDA_HMM SIMCUDA_FAIL SIMCUDA_MEM_MB
# Buggy samples (each has a NAME_fixed twin); the correct one has none.
BUGGY_SAMPLES="vision_merge embedding_lookup cross_entropy host_tokens pipeline_struct driver_api driver_api_rt"
CORRECT_SAMPLES="pipeline_peer"

# Every test runs three ways (issue 4): backend=both (the default), interpose
# (no CUPTI) and cupti (the hooks pass through, CUPTI callbacks see
# everything); the findings must be the same.  path_of BACKEND: the detection
# path that must have seen every launch of a sample (the interposer sees them
# all first when both run).
BACKENDS="both interpose cupti"
path_of() { [ "$1" = cupti ] && echo cupti || echo interpose; }

# need FILE...: the files were built.
need() { for _f in "$@"; do [ -e "$_f" ] || fail "not built: $_f (run make first)"; done; }

# run PREFIX CMD...: runs CMD; keeps stdout, stderr and exit status in
# PREFIX.out, PREFIX.err, PREFIX.rc.
run() {
    _p=$1; shift
    "$@" >"$_p.out" 2>"$_p.err"
    echo $? >"$_p.rc"
}
rc_of() { cat "$1.rc"; }

# canon PROGRAM JSON OUT [BACKEND]: canonical findings of the JSON Lines
# report, which must validate against report/finding.schema.json line by line;
# with BACKEND, every finding and launch was seen by its path (path_of).
canon() {
    [ -s "$2" ] || fail "$1: no JSON report written to $2"
    # one Python process: the schema check, then the canonical lines
    python3 "$E2E/findings.py" --schema "$ROOT/report/finding.schema.json" --program "$1" \
        ${4:+--path $(path_of "$4")} "$2" >"$3" 2>"$3.err"
    case $? in
    0) ;;
    4) cat "$3.err" >&2; fail "$1: report $2 does not follow the schema" ;;
    *) cat "$3.err" >&2; sed 's/^/    json> /' "$2" >&2
       fail "$1: malformed JSON report${4:+ or not all seen by $(path_of "$4") (backend=$4)}" ;;
    esac
}

# expect_findings EXPECTED ACTUAL WHAT: the canonical findings are exactly EXPECTED.
expect_findings() {
    diff -u "$1" "$2" >"$2.diff" || {
        sed 's/^/    /' "$2.diff" >&2
        fail "$3: findings differ from $(basename "$1") (- expected, + got)"
    }
}

# expect_launch_sites EXPECTED: every at=FILE:LINE of the expected file is a
# kernel launch in samples/FILE (keeps the expected files honest after edits).
expect_launch_sites() {
    for site in $(sed -n 's/.* at=\([^ ]*\).*/\1/p' "$1"); do
        [ "$site" = - ] && continue
        src=$ROOT/samples/${site%:*}
        sed -n "${site##*:}p" "$src" | grep -Eq '<<<|LaunchKernel' ||
            fail "$(basename "$1"): $site is not a kernel launch in $src"
    done
}

# expect_clean PROGRAM CANON: no finding at all, nothing unchecked.
expect_clean() {
    expect_no_grep '^[a-z_]+ severity=' "$2"
    expect_grep '^summary errors=0 warnings=0 launches=[1-9][0-9]* unchecked=0$' "$2"
}

# prog_site MODE: `modes_prog.cu:LINE` of the launch marked `// @MODE` in
# tests/e2e/modes_prog.cu (the at= of its findings).
prog_site() { echo "modes_prog.cu:$(grep -n "// @$1\b" "$ROOT/tests/e2e/modes_prog.cu" | cut -d: -f1)"; }
