#!/bin/sh
# run.sh: alone
# pip install <clone> into a fresh virtualenv (the build backend runs make
# wheel), then:
# - the wheel file (build/devcheck-V-py3-none-manylinux_2_X_ARCH.whl): X is
#   the highest GLIBC_2.X any native file in it references (readelf), and
#   auditwheel agrees; every DT_NEEDED of every native file is glibc's, the
#   C/C++ runtime's, the sim's or a bundled library in deps/; every library
#   libdevcheck.so names for dlopen is NVIDIA's (the program's own) or
#   bundled under that name; no NVIDIA library is bundled (the sim's
#   stand-ins are the only CUDA libraries in it);
# - ldd of the installed libdevcheck.so and sim libraries: glibc, the C/C++
#   runtime and the bundled libraries, nothing else;
# - with the build tree moved away, from a directory outside the clone, the
#   `devcheck` command and `python -m devcheck` find in vision_merge what the
#   build tree's wrapper finds (statuses kept, --error-exitcode), and the
#   same in a buggy cuda-bindings script; arguments reach the program
#   unchanged; the man page is in the environment's share/man/man1;
# - pip uninstall removes the command, the package and the man page.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/install/common.sh"
[ -z "$SANITIZE" ] || fail "the wheel packages the plain build: run without SANITIZE"
base=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11.*/bin/python3 2>/dev/null | tail -n 1)
[ -n "$base" ] || base=$(command -v python3)
V=$TMPD/venv
"$base" -m venv "$V" || fail "cannot make a virtualenv with $base"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS "$V/bin/python" -m pip install --no-input --disable-pip-version-check "$ROOT" \
    >"$TMPD/pip.log" 2>&1 || { tail -n 30 "$TMPD/pip.log" >&2; fail "pip install $ROOT failed"; }

# ---- the wheel file
set -- "$BUILD"/devcheck-*.whl
[ $# = 1 ] && [ -f "$1" ] || fail "expected one wheel in $BUILD, found: $*"
WHL=$1
arch=$(uname -m)
tag=$(basename "$WHL" .whl | sed 's/^devcheck-[^-]*-py3-none-//')
W=$TMPD/whl
mkdir -p "$W" && (cd "$W" && python3 -m zipfile -e "$WHL" .) || fail "cannot unpack $WHL"
N=$W/devcheck/_native
elves=$(find "$N" -type f | while read -r f; do [ "$(head -c 4 "$f" | tail -c 3)" = ELF ] && echo "$f"; done)
[ -n "$elves" ] || fail "no native file in the wheel"
glibc=$(for f in $elves; do readelf -V "$f"; done | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -n 1)
expect_eq "the wheel's platform tag" "manylinux_2_${glibc}_$arch" "$tag"
tools=$(sh "$ROOT/mk/pyenv.sh" "$ROOT/packaging/requirements.txt") || fail "no wheel tools"
"$tools/bin/auditwheel" show "$WHL" >"$TMPD/show" 2>&1 || { cat "$TMPD/show" >&2; fail "auditwheel show failed"; }
tr -s ' \n' ' ' <"$TMPD/show" | grep -q "consistent with the following platform tag: \"$tag\"" ||
    { cat "$TMPD/show" >&2; fail "auditwheel does not find the wheel consistent with $tag"; }
# and the sim's NVIDIA libraries (sim/libs/) with their preload.list
expect_eq "the sim's libraries in the wheel" \
    "$(printf '%s\n' libcuda.so.1 libcudart.so.13 libcupti.so.13 libnvidia-ml.so.1 preload.list $(cat "$BUILD/sim/preload.list") |
       LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" \
    "$(ls "$N/lib/devcheck/sim" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
bundled=$(ls "$N/lib/devcheck/deps")
nvidia='^lib(cuda|cudart|cupti|nvidia-|nvrtc|nvJitLink|cublas|cudnn|cufft|cusolver|cusparse|curand|nccl|nvToolsExt|nvperf)'
echo "$bundled" | grep -Eq "$nvidia" && fail "NVIDIA libraries bundled: $(echo "$bundled" | grep -E "$nvidia")"
system='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libresolv\.so\.2|libutil\.so\.1|ld-linux-x86-64\.so\.2|ld-linux-aarch64\.so\.1|libgcc_s\.so\.1|libstdc\+\+\.so\.6)$'
sims='^(libcuda\.so\.1|libcudart\.so\.13|libcupti\.so\.13|libnvidia-ml\.so\.1)$'
for f in $elves; do
    for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        echo "$n" | grep -Eq "$system|$sims" && continue
        [ -f "$N/lib/devcheck/sim/$n" ] && continue     # a sim library needing another (RUNPATH $ORIGIN)
        [ -f "$N/lib/devcheck/deps/$n" ] || fail "${f#"$W"/} needs $n, neither system nor bundled"
    done
done
dlopened=""
for n in $(readelf -p .rodata "$N/lib/devcheck/libdevcheck.so" | grep -o 'lib[A-Za-z0-9_+-]*\.so\.[0-9]*' | sort -u); do
    echo "$n" | grep -Eq "$system|$nvidia" && continue
    [ -f "$N/lib/devcheck/deps/$n" ] || fail "libdevcheck.so names $n (for dlopen): not bundled"
    dlopened="$dlopened $n"
done
note "wheel $(basename "$WHL"); bundled: $(echo $bundled); named for dlopen by libdevcheck.so:$dlopened"

# ---- what pip installed
S=$("$V/bin/python" -c 'import devcheck, os; print(os.path.dirname(devcheck.__file__))') || fail "import devcheck failed"
[ -x "$V/bin/devcheck" ] || fail "no devcheck command in $V/bin"
for f in "$S/_native/lib/devcheck/libdevcheck.so" "$S/_native/lib/devcheck/sim/libcuda.so.1"; do
    env -u LD_LIBRARY_PATH ldd "$f" >"$TMPD/ldd" 2>&1 || fail "ldd $f failed"
    sed 's/^/    ldd> /' "$TMPD/ldd"
    while read -r lib arrow path rest; do
        case $lib in linux-vdso.so.*|linux-gate.so.*|/*ld-linux*) continue ;; esac
        [ "$arrow" = "=>" ] || fail "ldd $f: unexpected line: $lib $arrow $path"
        echo "$lib" | grep -Eq "$system" && continue
        path=$(realpath "$path")
        case $path in "$S/_native/lib/devcheck/deps/"*) ;; *) fail "ldd $f: $lib resolves to $path, outside the wheel" ;; esac
    done <"$TMPD/ldd"
done
expect_man "$V/share/man/man1/devcheck.1"

ref_sample_runs
client_ref
hide_build
sample_runs wheel "$V/bin/devcheck"
sample_runs module "$V/bin/python" -m devcheck
client_run wheel "$V/bin/devcheck"
# the libraries libdevcheck.so loads with dlopen (a finding's stack and its
# symbols) are the wheel's, not this machine's: a copy of the program with
# its DWARF compressed, whose frames report/elfdw.c leaves to libdw (a
# stripped one no longer needs libdw: elfdw reads its .dynsym)
(cd "$TMPD/outside" && objcopy --compress-debug-sections=zlib ./vision_merge ./vision_merge_z &&
    LD_DEBUG=libs "$V/bin/devcheck" --sim 4 -- ./vision_merge_z >/dev/null 2>"$TMPD/lddebug") ||
    [ $? = 1 ] || fail "vision_merge with compressed DWARF under the wheel's devcheck (status 1 expected)"
for n in $dlopened; do
    # the first object to need it may reach it through its own RUNPATH
    # (sim/../deps/): compared as real paths
    p=$(sed -n "s|.*calling init: \(.*/$n\)\$|\1|p" "$TMPD/lddebug" | head -n 1)
    [ -n "$p" ] && [ "$(realpath "$p")" = "$(realpath "$S/_native/lib/devcheck/deps/$n")" ] ||
        fail "$n: not loaded from the wheel ($(grep "calling init: .*/$n" "$TMPD/lddebug" | head -n 1))"
done
cd "$TMPD/outside" || fail "no $TMPD/outside"
out=$("$V/bin/python" -m devcheck --sim 2 -- printf '%s|' 'a b' '' '--sim' 'c;d' 2>"$TMPD/args.err")
expect_eq "arguments through python -m devcheck" "a b||--sim|c;d|" "$out"
"$V/bin/devcheck" --sim 2 -- sh -c 'exit 5' 2>/dev/null
expect_eq "the program's exit status through the devcheck command" 5 "$?"
"$V/bin/devcheck" --no-such-option x 2>/dev/null
expect_eq "exit status of a bad command line" 2 "$?"
"$V/bin/python" -m devcheck --sim 2 -- ./no-such-program 2>/dev/null
expect_eq "exit status for a program that cannot be found" 127 "$?"
cd "$TMPD" || exit 1
restore_build

"$V/bin/python" -m pip uninstall -y --disable-pip-version-check devcheck >"$TMPD/uninstall.log" 2>&1 || fail "pip uninstall failed"
for f in "$V/bin/devcheck" "$S" "$V/share/man/man1/devcheck.1"; do
    [ ! -e "$f" ] || fail "pip uninstall left $f"
done
echo "ok: pip install of the clone, the wheel's tag and libraries, the installed devcheck without the build tree"
