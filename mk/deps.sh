#!/bin/sh
# Checks the build dependencies; run as root it installs the missing Debian
# packages, otherwise it prints the exact command and fails.
# Usage: mk/deps.sh CUDA_HOME
set -u
cuda_home=${1:-/usr/local/cuda}
if [ ! -f "$cuda_home/include/cuda.h" ] || [ ! -x "$cuda_home/bin/nvcc" ]; then
    echo "devcheck: CUDA toolkit not found at CUDA_HOME=$cuda_home (need include/cuda.h and bin/nvcc); set CUDA_HOME to the toolkit's directory" >&2
    exit 1
fi
# NVRTC's header (preload/hooks_nvrtc.c) and library (tests/e2e/untyped_prog links it): part of the toolkit
if [ ! -f "$cuda_home/include/nvrtc.h" ] || [ ! -e "$cuda_home/lib64/libnvrtc.so" ]; then
    echo "devcheck: the CUDA toolkit at CUDA_HOME=$cuda_home has no NVRTC (need include/nvrtc.h and lib64/libnvrtc.so: NVIDIA's cuda-nvrtc-dev package)" >&2
    exit 1
fi
# DEB_ARCH (mk/arch.mk): a cross build for that Debian architecture (arm64):
# $CC is the cross compiler, the libraries are that architecture's packages
# (dpkg multiarch, beside this machine's), and its programs run under $QEMU
# (mk/qemu.sh; installed without binfmt-support, which it does not need).
deb_arch=${DEB_ARCH:-}
missing=""
lib_pkg() { echo "$1${deb_arch:+:$deb_arch}"; }     # a package of the target's
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_lib() { case $(${CC:-cc} -print-file-name="$1" 2>/dev/null) in */*) return 0 ;; esac; return 1; }
have_header libunwind.h && have_lib libunwind.so || missing="$missing $(lib_pkg libunwind-dev)"
have_header uthash.h            || missing="$missing uthash-dev"
have_header elfutils/libdw.h && have_lib libdw.so || missing="$missing $(lib_pkg libdw-dev)"
have_header libelf.h && have_lib libelf.so || missing="$missing $(lib_pkg libelf-dev)"
have_header zstd.h && have_lib libzstd.so || missing="$missing $(lib_pkg libzstd-dev)"
have_header zlib.h && have_lib libz.so || missing="$missing $(lib_pkg zlib1g-dev)"   # devcheck replay: gzip'd traces
have_header libiberty/demangle.h && have_lib libiberty.a || missing="$missing $(lib_pkg libiberty-dev)"   # the demangler, linked statically
command -v python3 >/dev/null   || missing="$missing python3"
if [ -z "$deb_arch" ]; then         # make fuzz (tests/fuzz/): clang's libFuzzer, for this machine only
    command -v clang >/dev/null || missing="$missing clang"
    [ -e "$(clang -print-resource-dir 2>/dev/null)/lib/linux/libclang_rt.fuzzer-$(uname -m).a" ] ||
        missing="$missing libclang-rt-dev"
fi
have_header valgrind/callgrind.h || missing="$missing valgrind"    # make bench, tests/bench: callgrind
command -v valgrind >/dev/null  || case $missing in *valgrind*) ;; *) missing="$missing valgrind" ;; esac
command -v xmllint >/dev/null   || missing="$missing libxml2-utils" # tests: JUnit XML against its schema
command -v mpirun >/dev/null    || missing="$missing openmpi-bin"   # tests: a 2-rank job under mpirun
command -v chromium >/dev/null  || missing="$missing chromium"      # tests: the HTML report in a headless browser
if [ -n "$deb_arch" ]; then
    case $deb_arch in
        arm64) triplet=aarch64-linux-gnu loader=/lib/ld-linux-aarch64.so.1 ;;
        *) echo "devcheck: no cross build for Debian architecture $deb_arch" >&2; exit 1 ;;
    esac
    command -v "${CC:-cc}" >/dev/null || missing="$missing gcc-$triplet"
    have_lib libstdc++.so           || missing="$missing g++-$triplet"      # -lstdc++ (the sim's driver)
    [ -e "$loader" ]                || missing="$missing libc6:$deb_arch"   # the tests' loader and libc
    [ -e "/usr/lib/$triplet/libstdc++.so.6" ] || missing="$missing libstdc++6:$deb_arch"
    command -v "${QEMU:-qemu-aarch64-static}" >/dev/null || missing="$missing qemu-user-static"
fi
[ -z "$missing" ] && exit 0
# a target's packages need its architecture in dpkg's list
add_arch=""
if [ -n "$deb_arch" ] && [ "$deb_arch" != "$(dpkg --print-architecture 2>/dev/null)" ] &&
    ! dpkg --print-foreign-architectures 2>/dev/null | grep -qx "$deb_arch"; then
    add_arch="dpkg --add-architecture $deb_arch"
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "devcheck: installing missing packages:$missing" >&2
    { [ -z "$add_arch" ] || $add_arch; } &&
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${deb_arch:+--no-install-recommends} $missing >&2 && exit 0
    echo "devcheck: apt-get failed to install:$missing" >&2
    exit 1
fi
echo "devcheck: missing build dependencies; run: ${add_arch:+sudo $add_arch && sudo apt-get update && }sudo apt-get install -y$missing" >&2
exit 1
