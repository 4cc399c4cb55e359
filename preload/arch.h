/* Per-architecture facts of the interposer, for C, assembly and the version
 * script alike (preload/exports.map.in): definitions only.
 *
 * glibc's symbol versions.  libdevcheck.so defines dlsym, __libc_start_main
 * and exit under every version the architecture's libc.so.6 defines them
 * (tests/preload/glibc_versions.sh compares them with readelf): a program or
 * library binds to the version it was linked against, and one that finds
 * only another version bypasses us.  GLIBC_2.34 moved dlsym and
 * __libc_start_main into libc.so.6 under new versions on every
 * architecture; before it they have the architecture's base version, the
 * first glibc that supported it (x86-64: 2.2.5, aarch64: 2.17), which
 * binaries linked against older glibc (manylinux wheels, NVIDIA's libraries)
 * still import.  exit has only the base version.
 *
 * The dlsym entry stub (tail jump to the real dlsym) is written per
 * architecture in preload/arch_<arch>.S. */
#ifndef DEVCHECK_PRELOAD_ARCH_H
#define DEVCHECK_PRELOAD_ARCH_H

#if defined(__x86_64__)
#define DC_GLIBC_BASE_NODE GLIBC_2.2.5
#elif defined(__aarch64__)
#define DC_GLIBC_BASE_NODE GLIBC_2.17
#else
#error "devcheck supports x86-64 and aarch64"
#endif

#define DC_ARCH_STR_(x) #x
#define DC_ARCH_STR(x) DC_ARCH_STR_(x)
/* The base version as a string: "GLIBC_2.2.5" / "GLIBC_2.17". */
#define DC_GLIBC_BASE DC_ARCH_STR(DC_GLIBC_BASE_NODE)

#endif
