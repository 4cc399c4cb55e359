#!/bin/sh
# A driver-API program that gets its entry points with dlsym on libcuda.so.1
# (tests/preload/drvapi.c) is checked whichever glibc version of dlsym it
# imports: dlsym@GLIBC_2.34 and the architecture's base version (GLIBC_2.2.5
# on x86-64, GLIBC_2.17 on aarch64: binaries linked against glibc before
# 2.34, manylinux wheels, NVIDIA's libraries), which would otherwise reach the
# driver's own functions: no allocation, no launch seen.  Its cross-device
# launch is a device_mismatch, and error_exitcode replaces its status 0
# whether main returns or it calls exit() (__libc_start_main and exit, at
# the versions it imports).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB" "$PT/drvapi" "$PT/xdev.cubin" "$SIM_DIR/libcuda.so.1"
base=$(printf '#include "preload/arch.h"\nDC_GLIBC_BASE_NODE\n' | ${CC:-gcc} -E -P -I"$ROOT" -x c - | tr -d ' ')
readelf --dyn-syms -W "$PT/drvapi" >"$TMPD/imports"
expect_grep " dlsym@$base( |\$)" "$TMPD/imports"
expect_grep ' dlsym@GLIBC_2\.34( |$)' "$TMPD/imports"
K=_Z8xdev_addPfPKfi
for how in "base" "new" "base exit" "new exit"; do
    tag=$(echo "$how" | tr ' ' _)
    # shellcheck disable=SC2086
    run "$TMPD/$tag" under_devcheck env DEVCHECK_OPTIONS="json_path=$TMPD/$tag.json:error_exitcode=9" \
        "$PT/drvapi" "$PT/xdev.cubin" $how
    sed "s/^/    $tag> /" "$TMPD/$tag.err"
    expect_eq "drvapi $how: status" 9 "$(rc_of "$TMPD/$tag")"
    expect_eq "drvapi $how: stdout" "drvapi: done" "$(cat "$TMPD/$tag.out")"
    findings "$TMPD/$tag.json" >"$TMPD/$tag.f"
    sed "s/^/    $tag: /" "$TMPD/$tag.f"
    expect_grep "^device_mismatch kernel=$K param=1 launch=0 owner=1 api=cuLaunchKernel\$" "$TMPD/$tag.f"
    expect_grep '^summary errors=1 ' "$TMPD/$tag.f"
done
# without devcheck: the program's own status
run "$TMPD/plain" on_sim "$PT/drvapi" "$PT/xdev.cubin" base exit
expect_eq "plain: status" 0 "$(rc_of "$TMPD/plain")"
