#!/bin/sh
# run.sh: alone
# make install PREFIX=<temporary prefix> (and DESTDIR): exactly the files of
# the layout (bin/devcheck, lib/devcheck/{libdevcheck.so,sim/*,python/*},
# share/doc/devcheck/*, share/man/man1/devcheck.1), none naming the build
# tree; the man page lists every option of core/base/flags.def; ldd of the
# installed library shows glibc alone.  Then, with the build tree
# moved away and from a directory outside the clone, the installed
# `devcheck --sim 4` finds in vision_merge what the build tree's finds
# (report mode: the program's status 1; migrate mode: --error-exitcode 7)
# and, without a sanitizer, the same in a buggy cuda-bindings script.
# make uninstall removes every file install put, and leaves others.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/install/common.sh"
P=$TMPD/prefix
make_here install PREFIX="$P" >"$TMPD/install.log" 2>&1 || { cat "$TMPD/install.log" >&2; fail "make install failed"; }

py_files=$(ls "$BUILD/lib/python/"*.py 2>/dev/null | sed 's|.*/|lib/devcheck/python/|')
# the sim's NVIDIA libraries (sim/libs/): those its preload.list names, and the list
sim_libs=$(sed 's|^|lib/devcheck/sim/|' "$BUILD/sim/preload.list")
expected=$(printf '%s\n' bin/devcheck lib/devcheck/libdevcheck.so lib/devcheck/sim/libcuda.so.1 \
    lib/devcheck/sim/libcudart.so.13 lib/devcheck/sim/libcupti.so.13 lib/devcheck/sim/libnvidia-ml.so.1 \
    lib/devcheck/sim/preload.list $sim_libs \
    share/doc/devcheck/README.md share/doc/devcheck/FORMAT.md share/doc/devcheck/finding.schema.json \
    share/man/man1/devcheck.1 $py_files | sort)
expect_eq "installed files" "$expected" "$(cd "$P" && find . -type f | sed 's|^\./||' | sort)"
[ -x "$P/bin/devcheck" ] || fail "bin/devcheck is not executable"
expect_man "$P/share/man/man1/devcheck.1"
expect_no_build_path "$P/bin/devcheck" "$P/lib/devcheck/libdevcheck.so" "$P"/lib/devcheck/sim/*
ldd "$P/lib/devcheck/libdevcheck.so" >"$TMPD/ldd" 2>&1 || fail "ldd failed on the installed library"
expect_no_grep 'not found' "$TMPD/ldd"
# libunwind and libdw are loaded with dlopen: the library needs glibc alone
# (and the sanitizer's runtime in a sanitizer build, with its libgcc_s and,
# for libubsan, libstdc++)
sed 's/^/    ldd> /' "$TMPD/ldd"
grep -Ev '^[[:space:]]*(linux-vdso\.so|/lib|lib(c|m|dl|pthread|rt)\.so\.[0-9]+ |lib(asan|tsan|ubsan)\.so)' \
    "$TMPD/ldd" | { [ -n "$SANITIZE" ] && grep -Ev '^[[:space:]]*(libgcc_s\.so\.1|libstdc\+\+\.so\.6) ' || cat; } \
    >"$TMPD/ldd.other"
[ ! -s "$TMPD/ldd.other" ] || { cat "$TMPD/ldd.other" >&2; fail "the installed library needs more than glibc"; }

ref_sample_runs
[ -z "$SANITIZE" ] && client_ref
hide_build
sample_runs prefix "$P/bin/devcheck"
[ -z "$SANITIZE" ] && client_run prefix "$P/bin/devcheck"
restore_build

# uninstall: nothing of devcheck's left, another file in its directories kept
touch "$P/bin/other"
make_here uninstall PREFIX="$P" >"$TMPD/uninstall.log" 2>&1 || { cat "$TMPD/uninstall.log" >&2; fail "make uninstall failed"; }
expect_eq "files left after uninstall" "bin/other" "$(cd "$P" && find . -type f | sed 's|^\./||')"
[ ! -e "$P/lib/devcheck" ] && [ ! -e "$P/share/doc/devcheck" ] || fail "devcheck's own directories left behind"

# DESTDIR: staged under DESTDIR, the same files; uninstall empties it
D=$TMPD/dest
make_here install DESTDIR="$D" PREFIX=/opt/devcheck >"$TMPD/install2.log" 2>&1 || fail "make install DESTDIR= failed"
expect_eq "files installed with DESTDIR" "$expected" "$(cd "$D/opt/devcheck" && find . -type f | sed 's|^\./||' | sort)"
make_here uninstall DESTDIR="$D" PREFIX=/opt/devcheck >/dev/null 2>&1 || fail "make uninstall DESTDIR= failed"
expect_eq "files left after uninstall with DESTDIR" "" "$(find "$D" -type f)"
echo "ok: make install, the installed devcheck without the build tree, make uninstall"
