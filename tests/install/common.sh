# Helpers of the installation tests (sourced by tests/install/*.sh, not a
# test): devcheck installed outside the clone must find the same as the build
# tree, with the build tree moved away.
. "$ROOT/tests/e2e/common.sh"     # tests/lib.sh, run, canon, expect_findings

# make_here ARGS...: make in the clone, as a fresh command (not a sub-make of
# the `make test` running this test).
make_here() {
    env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -C "$ROOT" --no-print-directory BUILD="$BUILD" "$@"
}

# hide_build: moves $BUILD aside until the test exits (restored by the trap,
# also on a signal); what a test needs from it it copies out first.
hide_build() {
    ASIDE=$BUILD.aside-$$
    mv "$BUILD" "$ASIDE" || fail "cannot move $BUILD aside"
    trap 'restore_build; rm -rf "$TMPD"' EXIT
    trap 'exit 1' INT TERM HUP
}
restore_build() {
    [ -n "${ASIDE:-}" ] && [ -d "$ASIDE" ] && [ ! -e "$BUILD" ] && mv "$ASIDE" "$BUILD"
    ASIDE=""
}

# flag_names: every key of core/base/flags.def.
flag_names() { sed -n 's/^DC_FLAG([^,]*,[^,]*, *\([a-z_0-9]*\) *,.*/\1/p' "$ROOT/core/base/flags.def"; }

# expect_man PAGE: the page lists every option of core/base/flags.def with its
# command-line spelling, as many as `devcheck --help` (DEVCHECK) prints.
expect_man() {
    [ -s "$1" ] || fail "no man page $1"
    grep -q '^\.TH DEVCHECK 1 ' "$1" || fail "$1: no .TH DEVCHECK 1 line"
    n=0
    for k in $(flag_names); do
        n=$((n + 1))
        dashed=$(echo "$k" | sed 's/_/\\\\-/g')
        grep -q "^\\\\fB\\\\-\\\\-$dashed\\\\fR" "$1" || fail "$1: no entry for --$(echo "$k" | tr _ -) (flags.def key $k)"
    done
    [ "$n" -gt 10 ] || fail "read only $n keys from core/base/flags.def"
    expect_eq "options in $1 (.TP entries under OPTIONS)" "$n" \
        "$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$1" | grep -c '^\.TP')"
}

# expect_no_build_path FILE...: no ELF file names the build tree.
expect_no_build_path() {
    for _f in "$@"; do
        ! strings -a "$_f" | grep -qF "$BUILD/" || fail "$_f names the build tree ($BUILD/)"
    done
}

# sample_runs DEVCHECK WHAT...: the installed DEVCHECK (a command) on a copy
# of vision_merge from the current directory: report mode (the program's own
# status 1 kept), migrate mode with --error-exitcode 7 (the program finishes
# with 0: status 7); findings equal to $TMPD/ref.report and $TMPD/ref.migrate,
# made by ref_sample_runs from the build tree.
ref_sample_runs() {
    cp "$SAMPLES/vision_merge" "$TMPD/vision_merge" || fail "no sample $SAMPLES/vision_merge"
    (cd "$TMPD" && one_sample_run ref "$DEVCHECK_BIN") || exit 1
    expect_findings "$E2E/expected/vision_merge.txt" "$TMPD/ref.report.canon" "vision_merge from the build tree"
}
one_sample_run() {   # one_sample_run NAME DEVCHECK...
    _n=$1; shift
    run "$TMPD/$_n.report" "$@" --sim 4 --json "$TMPD/$_n.report.json" -- ./vision_merge
    canon vision_merge "$TMPD/$_n.report.json" "$TMPD/$_n.report.canon"
    expect_eq "$_n: vision_merge's own exit status (report mode)" 1 "$(rc_of "$TMPD/$_n.report")"
    expect_grep '^devcheck: running on 4 simulated GPUs' "$TMPD/$_n.report.err"
    run "$TMPD/$_n.migrate" "$@" --sim 4 --mode migrate --error-exitcode 7 --json "$TMPD/$_n.migrate.json" -- ./vision_merge
    canon vision_merge "$TMPD/$_n.migrate.json" "$TMPD/$_n.migrate.canon"
    expect_eq "$_n: exit status with --error-exitcode 7 (migrate mode, program OK)" 7 "$(rc_of "$TMPD/$_n.migrate")"
    expect_grep '^vision_merge: OK' "$TMPD/$_n.migrate.out"
}
sample_runs() {   # sample_runs NAME DEVCHECK...: from $TMPD/outside
    _n=$1
    mkdir -p "$TMPD/outside" && cp "$TMPD/vision_merge" "$TMPD/outside/"
    (cd "$TMPD/outside" && one_sample_run "$@") || exit 1
    expect_findings "$TMPD/ref.report.canon" "$TMPD/$_n.report.canon" "$_n: vision_merge (report mode)"
    expect_findings "$TMPD/ref.migrate.canon" "$TMPD/$_n.migrate.canon" "$_n: vision_merge (migrate mode)"
}

# The Python client (a buggy cuda-bindings script) under devcheck: copies the
# script and the twins out of the clone and build tree (client_ref first,
# from the build tree), then client_run NAME DEVCHECK... from outside.
client_ref() {
    need_pyenv
    mkdir -p "$TMPD/client"
    cp "$ROOT/tests/clients/cuda_bindings_bug.py" "$ROOT/tests/clients/twins.py" "$TMPD/client/"
    cp "$BUILD/tests/clients/libclient_twins.so" "$TMPD/client/" || fail "not built: libclient_twins.so"
    export DEVCHECK_CLIENT_TWINS="$TMPD/client/libclient_twins.so"
    client_run ref "$DEVCHECK_BIN"
    expect_eq "cuda_bindings_bug from the build tree: findings" \
        "device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1
summary errors=1 warnings=0 launches=1 unchecked=0" "$(sed 's/ at=[^ ]*//' "$TMPD/ref.client.canon")"
}
client_run() {   # client_run NAME DEVCHECK...
    _n=$1; shift
    (cd "$TMPD/client" && run "$TMPD/$_n.client" "$@" --sim 4 --json "$TMPD/$_n.client.json" -- "$PY" cuda_bindings_bug.py)
    canon cuda_bindings_bug "$TMPD/$_n.client.json" "$TMPD/$_n.client.canon"
    expect_eq "$_n: cuda_bindings_bug's own exit status" 3 "$(rc_of "$TMPD/$_n.client")"
    [ "$_n" = ref ] || expect_findings "$TMPD/ref.client.canon" "$TMPD/$_n.client.canon" "$_n: cuda_bindings_bug.py"
}
