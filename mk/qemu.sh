#!/bin/sh
# mk/qemu.sh CMD [ARG...]: runs CMD where aarch64 programs run on this
# machine, so a cross build's tests (mk/cross.mk) run with the same runner
# and the same scripts as a native build's: every aarch64 program they start,
# directly or from another program (the wrapper's exec, a fork's child),
# runs under qemu-user through the kernel's binfmt_misc, with the arm64
# loader and libraries of Debian's multiarch packages (mk/deps.sh).
#
# If aarch64 programs already run (an aarch64 machine, or binfmt-support's
# qemu-aarch64 entry), CMD simply runs.  Otherwise CMD runs in a user and
# mount namespace of its own with a private binfmt_misc instance (Linux 6.7
# and later) holding qemu-user-static's aarch64 entry: nothing of the
# machine's own configuration changes.  $QEMU names the emulator
# (default qemu-aarch64-static).
set -u
[ $# -gt 0 ] || { echo "usage: mk/qemu.sh CMD [ARG...]" >&2; exit 2; }
probe=/lib/ld-linux-aarch64.so.1        # the arm64 loader runs as a program
if "$probe" --help >/dev/null 2>&1; then
    exec "$@"
fi
die() {
    echo "devcheck: cannot run aarch64 programs here: $*" >&2
    echo "devcheck: install qemu-user-static and binfmt-support (update-binfmts --enable qemu-aarch64), or run on Linux 6.7+ with user namespaces" >&2
    exit 1
}
[ -e "$probe" ] || die "no arm64 loader $probe (libc6:arm64, mk/deps.sh)"
qemu=$(command -v "${QEMU:-qemu-aarch64-static}") || die "no ${QEMU:-qemu-aarch64-static}"
# Debian's own entry (flags OPF: the interpreter opened now, argv[0] kept),
# else the same magic with the emulator itself.
entry=$(cat /usr/lib/binfmt.d/qemu-aarch64.conf 2>/dev/null)
case $entry in
    :qemu-aarch64:M:*) ;;
    *) entry=":qemu-aarch64:M::\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00:\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff:$qemu:F" ;;
esac
command -v unshare >/dev/null 2>&1 || die "no unshare (util-linux)"
unshare --user --map-root-user --mount true 2>/dev/null || die "no user namespace (unshare --user failed)"
# shellcheck disable=SC2016
exec unshare --user --map-root-user --mount sh -c '
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null &&
        printf "%s\n" "$1" >/proc/sys/fs/binfmt_misc/register 2>/dev/null &&
        "$2" --help >/dev/null 2>&1 || {
        echo "devcheck: cannot run aarch64 programs here: no private binfmt_misc (needs Linux 6.7+)" >&2
        exit 1
    }
    shift 2
    exec "$@"' sh "$entry" "$probe" "$@"
