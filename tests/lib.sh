# Shared helpers for shell tests; source it: `. "$ROOT/tests/lib.sh"`.
# tests/run.sh exports ROOT, BUILD, CUDA_HOME and SANITIZE.
set -u
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${BUILD:=$ROOT/build}"
: "${SANITIZE:=}"
SIM_DIR=$BUILD/sim
DEVCHECK_LIB=$BUILD/lib/libdevcheck.so
DEVCHECK_BIN=$BUILD/bin/devcheck
SAMPLES=$BUILD/samples
# Sanitizer runtime that must be loaded first when our instrumented shared
# objects are loaded into an uninstrumented (nvcc-built) program.
SAN_PRELOAD=""
# SANITIZE=address,undefined (CI's build): both, AddressSanitizer's runtime first.
case $SANITIZE in
    address|address,undefined)
             SAN_PRELOAD=$(${CC:-gcc} -print-file-name=libasan.so)
             export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} ;;
    # intercept_tls_get_addr=0: libtsan's __tls_get_addr interceptor takes a
    # dynamic TLS block that ld.so allocated itself (libdw's, dlopen'ed by
    # devcheck) for one of its own and maps shadow for a garbage size at the
    # first libdw call of a thread ("ThreadSanitizer failed to allocate
    # 0x1ec2ffffff000 bytes", exit 66; google/sanitizers#1409's class).
    thread)  SAN_PRELOAD=$(${CC:-gcc} -print-file-name=libtsan.so)
             export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:report_signal_unsafe=0:intercept_tls_get_addr=0} ;;
esac
case $SANITIZE in
    undefined|address,undefined) export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} ;;
esac
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/devcheck-test.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

# on_sim CMD...: run CMD on the simulated GPUs (no devcheck).
on_sim() {
    env LD_LIBRARY_PATH="$SIM_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        ${SAN_PRELOAD:+LD_PRELOAD="$SAN_PRELOAD"} "$@"
}
# under_devcheck CMD...: run CMD on the sim with libdevcheck.so preloaded.
under_devcheck() {
    env LD_LIBRARY_PATH="$SIM_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB" "$@"
}
# expect_eq WHAT EXPECTED ACTUAL
expect_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }
# expect_grep PATTERN FILE: FILE has a line matching the extended regex.
expect_grep() { grep -Eq -- "$1" "$2" || { sed 's/^/    > /' "$2" >&2; fail "no line matching '$1' in $2"; }; }
expect_no_grep() { ! grep -Eq -- "$1" "$2" || { sed 's/^/    > /' "$2" >&2; fail "unexpected line matching '$1' in $2"; }; }
# expect_same_run WHAT PLAIN RUN: RUN (a `run` prefix: .out, .rc) printed
# what PLAIN (the program without devcheck) printed and exited as it did.
expect_same_run() {
    cmp -s "$2.out" "$3.out" || { diff -u "$2.out" "$3.out" >&2; fail "$1: stdout differs"; }
    expect_eq "$1: exit status" "$(cat "$2.rc")" "$(cat "$3.rc")"
}

# need_pyenv: the Python clients (torch, triton, numba-cuda, cuda-bindings,
# cuda-core) for the tests in tests/clients/: the virtualenv mk/pyenv.sh
# makes once, outside the clone.  Sets PYENV, PY (its python) and exports
# what the client programs need: the twins object, the toolkit for numba and
# torch's extension builds, Triton's and torch's build caches (outside the
# clone, beside the virtualenv), the virtualenv's bin (ninja) on PATH.
need_pyenv() {
    PYENV=$(sh "$ROOT/mk/pyenv.sh") || fail "no Python client environment (mk/pyenv.sh failed, see above)"
    PY=$PYENV/bin/python
    cache=${DEVCHECK_CACHE:-${HOME:-/tmp}/.cache/devcheck}
    export PATH="$PYENV/bin:$PATH" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
    export TRITON_CACHE_DIR="$cache/triton" TORCH_EXTENSIONS_DIR="$cache/torch-extensions"
    export TRITON_DEFAULT_FP_FUSION=1 PYTHONDONTWRITEBYTECODE=1
    export DEVCHECK_CLIENT_TWINS="$BUILD/tests/clients/libclient_twins.so"
}
# sim_preload: the sim's libcudart.so.13 and NVIDIA libraries (the files
# $SIM_DIR/preload.list names, sim/libs/README.md), space-separated, as
# `devcheck --sim` preloads them.
sim_preload() {
    printf '%s' "$SIM_DIR/libcudart.so.13"
    [ -r "$SIM_DIR/preload.list" ] || return 0
    while read -r l; do [ -n "$l" ] && printf ' %s' "$SIM_DIR/$l"; done <"$SIM_DIR/preload.list"
}
# on_sim_rt CMD...: on_sim with the sim's runtime and libraries preloaded,
# so a program carrying NVIDIA's (PyTorch's wheels) uses the sim's.
on_sim_rt() {
    env LD_LIBRARY_PATH="$SIM_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$(sim_preload)" "$@"
}
# under_devcheck_rt CMD...: under_devcheck, the sim's runtime and libraries preloaded after libdevcheck.so.
under_devcheck_rt() {
    env LD_LIBRARY_PATH="$SIM_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB $(sim_preload)" "$@"
}
