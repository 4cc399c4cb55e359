#!/bin/sh
# libdevcheck.so defines dlsym, __libc_start_main and exit under exactly the
# versions the target's libc.so.6 defines them, read with readelf from the
# libc its programs load (found by their own loader): on x86-64
# GLIBC_2.2.5 and GLIBC_2.34, on aarch64 GLIBC_2.17 and GLIBC_2.34.  A
# program bound to a version devcheck lacks bypasses it: dlsym not
# substituted (no allocation nor driver-level launch seen), the exit status
# not learnt.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$DEVCHECK_BIN"
interp=$(readelf -l -W "$DEVCHECK_BIN" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || fail "no program interpreter in $DEVCHECK_BIN"
"$interp" --list "$DEVCHECK_LIB" >"$TMPD/ldd" 2>&1 || { cat "$TMPD/ldd" >&2; fail "$interp --list failed"; }
libc=$(sed -n 's/^[[:space:]]*libc\.so\.6 => \([^ ]*\) .*/\1/p' "$TMPD/ldd")
[ -f "$libc" ] || { cat "$TMPD/ldd" >&2; fail "no libc.so.6 for $DEVCHECK_LIB"; }
note "$(readelf -h "$DEVCHECK_LIB" | sed -n 's/^ *Machine: *//p'): $libc"
defined() {     # the defined versions of the three names in ELF file $1
    readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 ~ /^(dlsym|__libc_start_main|exit)@/ { print $8 }' | sort -u
}
defined "$libc" >"$TMPD/libc"
defined "$DEVCHECK_LIB" >"$TMPD/ours"
for name in dlsym __libc_start_main exit; do
    grep -q "^$name@" "$TMPD/libc" || fail "$libc defines no $name"
done
if ! diff -u "$TMPD/libc" "$TMPD/ours" >"$TMPD/diff"; then
    sed 's/^/    /' "$TMPD/diff" >&2
    fail "libdevcheck.so's versions differ from libc's (- libc, + libdevcheck.so)"
fi
note "$(tr '\n' ' ' <"$TMPD/ours")"
