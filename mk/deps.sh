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
missing=""
have_header() { printf '#include <%s>\n' "$1" | ${CC:-cc} -E -x c - >/dev/null 2>&1; }
have_header libunwind.h         || missing="$missing libunwind-dev"
have_header uthash.h            || missing="$missing uthash-dev"
have_header elfutils/libdw.h    || missing="$missing libdw-dev"
have_header libelf.h            || missing="$missing libelf-dev"
have_header zstd.h              || missing="$missing libzstd-dev"
have_header libiberty/demangle.h || missing="$missing libiberty-dev"   # the demangler, linked statically
command -v python3 >/dev/null   || missing="$missing python3"
have_header valgrind/callgrind.h || missing="$missing valgrind"    # make bench, tests/bench: callgrind
command -v valgrind >/dev/null  || case $missing in *valgrind*) ;; *) missing="$missing valgrind" ;; esac
command -v xmllint >/dev/null   || missing="$missing libxml2-utils" # tests: JUnit XML against its schema
command -v mpirun >/dev/null    || missing="$missing openmpi-bin"   # tests: a 2-rank job under mpirun
command -v chromium >/dev/null  || missing="$missing chromium"      # tests: the HTML report in a headless browser
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "devcheck: installing missing packages:$missing" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >&2 && exit 0
    echo "devcheck: apt-get failed to install:$missing" >&2
    exit 1
fi
echo "devcheck: missing build dependencies; run: sudo apt-get install -y$missing" >&2
exit 1
