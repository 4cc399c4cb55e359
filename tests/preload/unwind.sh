#!/bin/sh
# Nothing of devcheck's comes ahead of the program's own libraries in the
# global scope: a C++ library loaded late (dlopen from C, or ctypes from
# Python) throws and catches an exception, and _Unwind_RaiseException binds to
# libgcc_s, under devcheck and with mode=off (libunwind.so.8, linked as a
# dependency of the preload, took every C++ exception of such a process).
# libdevcheck.so needs glibc only.
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/throw_main" "$PT/libthrow.so"

readelf -dW "$DEVCHECK_LIB" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$TMPD/needed"
while read -r lib; do
    case $lib in
        libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|ld-linux*) ;;
        libasan.so.*|libtsan.so.*|libubsan.so.*) [ -n "$SANITIZE" ] || fail "libdevcheck.so needs $lib" ;;
        *) fail "libdevcheck.so needs $lib (only glibc may be linked; load others with dlopen(RTLD_LOCAL))" ;;
    esac
done <"$TMPD/needed"

# binding LOG WHAT: _Unwind_RaiseException was bound to libgcc_s (under
# AddressSanitizer to its interceptor, as without devcheck).
unwinder='libgcc_s\.so\.1'
case $SANITIZE in address|address,undefined) unwinder='libasan\.so[^ ]*' ;; esac

check_binding() {
    cat "$1".* >"$1" 2>/dev/null
    # (devcheck's own libunwind, loaded RTLD_LOCAL, binds its own references)
    grep "normal symbol \`_Unwind_RaiseException'" "$1" | grep -v 'binding file [^ ]*libunwind' >"$1.unw" || true
    expect_grep "binding file [^ ]*libstdc\\+\\+\\.so[^ ]* .* to [^ ]*$unwinder " "$1.unw"
    expect_no_grep 'to [^ ]*libunwind' "$1.unw"
    note "$2: $(sed 's/.*binding file \([^ ]*\) .* to \([^ ]*\) .*/\1 -> \2/' "$1.unw" | sort -u | tr '\n' ' ')"
}

for opts in "" "mode=off"; do
    run "$TMPD/c" under_devcheck env DEVCHECK_OPTIONS="$opts" LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMPD/cld" \
        "$PT/throw_main" "$PT/libthrow.so"
    expect_eq "C program ($opts) status" 0 "$(rc_of "$TMPD/c")"
    expect_eq "C program ($opts) stdout" "throw: 500" "$(cat "$TMPD/c.out")"
    check_binding "$TMPD/cld" "C program${opts:+ $opts}"
    rm -f "$TMPD"/cld*
done

# Python imports its extension modules and ctypes libraries RTLD_LOCAL, late.
# (Not in a cross build, CROSS set by the Makefile: this machine's python3
# cannot load the target's libraries.)
if [ -z "$SANITIZE" ] && [ -z "${CROSS:-}" ] && command -v python3 >/dev/null; then
    run "$TMPD/py" under_devcheck env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$TMPD/pld" python3 -c \
        'import ctypes, sys; print("throw: %d" % ctypes.CDLL(sys.argv[1]).throw_through(5))' "$PT/libthrow.so"
    expect_eq "python status" 0 "$(rc_of "$TMPD/py")"
    expect_eq "python stdout" "throw: 500" "$(cat "$TMPD/py.out")"
    check_binding "$TMPD/pld" "python"
fi
