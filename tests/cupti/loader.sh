#!/bin/sh
# Which libcupti.so.13 devcheck loads (report/FORMAT.md, "Detection paths"),
# on stand-in drivers (tests/preload/fakedrv) and a stand-in libcupti
# (fake_cupti.c: refuses every subscription, naming its own path):
#  - a driver that is not NVIDIA's and has no libcupti beside it gets none,
#    not even one on LD_LIBRARY_PATH (so the sim never gets NVIDIA's);
#  - NVIDIA's driver (libcuda.so.1 -> libcuda.so.<version>; on WSL plain
#    copies libcuda.so.1 and libcuda.so.1.1): the loader's search,
#    LD_LIBRARY_PATH first;
#  - a plain libcuda.so.1 beside a different libcuda.so.<version> is not
#    NVIDIA's;
#  - past the loader's search (ld.so --inhibit-cache: no ld.so.cache, whose
#    NVIDIA libcupti this machine may list), CUDA 13's Python wheel layout
#    $VIRTUAL_ENV/lib/python3.X/site-packages/nvidia/cu13/lib;
#  - a libcupti beside the driver wins over LD_LIBRARY_PATH;
#  - DEVCHECK_CUPTI wins over everything;
#  - CUDA 12 environments: libcupti.so.12, through the loader's search and
#    CUDA 12's wheel layout site-packages/nvidia/cuda_cupti/lib, second to
#    libcupti.so.13 unless the process runs CUDA 12's runtime
#    (libcudart.so.12 loaded, no .13), which puts it first.
# Each time exactly one line about CUPTI, and the program's output unchanged.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
CT=$BUILD/tests/cupti
PT=$BUILD/tests/preload
FAKE_DIR=$CT/fakecupti
FAKE12_DIR=$CT/fakecupti12
need "$DEVCHECK_LIB" "$PT/optional" "$PT/fakedrv/libcuda.so.1" "$PT/fakedrv_lacking/libcuda.so.1" "$FAKE_DIR/libcupti.so.13" \
    "$FAKE12_DIR/libcupti.so.12" "$PT/rt12/libcudart.so.12"
NOT_FOUND=$(grep -o 'CUDA_ERROR_NOT_FOUND *= *[0-9]*' "$CUDA_HOME/include/cuda.h" | grep -o '[0-9]*$')

# Drivers: NVIDIA-named, and one with its own libcupti beside it.
mkdir -p "$TMPD/nv" "$TMPD/own"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/nv/libcuda.so.580.65.06"
ln -s libcuda.so.580.65.06 "$TMPD/nv/libcuda.so.1"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/own/libcuda.so.1"
cp "$FAKE_DIR/libcupti.so.13" "$TMPD/own/libcupti.so.13"
# WSL's driver directory: copies, no link; and a look-alike whose
# libcuda.so.1.1 is another file.
mkdir -p "$TMPD/wsl" "$TMPD/twin"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/wsl/libcuda.so.1"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/wsl/libcuda.so.1.1"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/wsl/libcuda.so"
cp "$PT/fakedrv/libcuda.so.1" "$TMPD/twin/libcuda.so.1"
cp "$PT/fakedrv_lacking/libcuda.so.1" "$TMPD/twin/libcuda.so.1.1"

# one NAME LINE-REGEX VAR=VALUE...: one run of `optional`; one CUPTI line.
# $EXTRA_PRELOAD goes after libdevcheck.so.
EXTRA_PRELOAD=
one() {
    t=$TMPD/$1 re=$2; shift 2
    run "$t" env "$@" CUDA_HOME="$TMPD/no-cuda-home" \
        LD_PRELOAD="${SAN_PRELOAD:+$SAN_PRELOAD }$DEVCHECK_LIB${EXTRA_PRELOAD:+ $EXTRA_PRELOAD}" \
        $LDSO "$PT/optional"
    expect_eq "$1: status" 0 "$(rc_of "$t")"
    expect_eq "$1: stdout" "optional: async=$NOT_FOUND alloc=999" "$(cat "$t.out")"
    expect_eq "$1: lines about CUPTI" 1 "$(grep -c CUPTI "$t.err")"
    expect_grep "$re" "$t.err"
}
LDSO=
alone='; running on interposition alone$'
one notnv "^devcheck: CUPTI: the driver .*/fakedrv/libcuda\.so\.1 is not NVIDIA's and has no libcupti\.so\.13 \(or \.12\) beside it$alone" \
    LD_LIBRARY_PATH="$PT/fakedrv:$FAKE_DIR"
one search "^devcheck: CUPTI: held by another subscriber \(fake at $FAKE_DIR/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv:$FAKE_DIR"
one wsl "^devcheck: CUPTI: held by another subscriber \(fake at $FAKE_DIR/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/wsl:$FAKE_DIR"
one twin "^devcheck: CUPTI: the driver $TMPD/twin/libcuda\.so\.1 is not NVIDIA's and has no libcupti\.so\.13 \(or \.12\) beside it$alone" \
    LD_LIBRARY_PATH="$TMPD/twin:$FAKE_DIR"
# CUDA 13's wheels: site-packages/nvidia/cu13/lib, found through $VIRTUAL_ENV
# when the loader's search has none (the program run by ld.so without its cache).
mkdir -p "$TMPD/venv/lib/python3.12/site-packages/nvidia/cu13/lib"
cp "$FAKE_DIR/libcupti.so.13" "$TMPD/venv/lib/python3.12/site-packages/nvidia/cu13/lib/"
LDSO="$(readelf -l "$PT/optional" | sed -n 's/.*interpreter: \(.*\)]$/\1/p') --inhibit-cache"
one wheel "^devcheck: CUPTI: held by another subscriber \(fake at $TMPD/venv/lib/python3\.12/site-packages/nvidia/cu13/lib/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv" VIRTUAL_ENV="$TMPD/venv"
LDSO=
one beside "^devcheck: CUPTI: held by another subscriber \(fake at $TMPD/own/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/own:$FAKE_DIR"
one env "^devcheck: CUPTI: held by another subscriber \(fake at $TMPD/own/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv:$FAKE_DIR" DEVCHECK_CUPTI="$TMPD/own/libcupti.so.13"
# CUDA 12: libcupti.so.12 when no .13 is found; first when the process runs
# CUDA 12's runtime; CUDA 12's wheel layout.  (Without ld.so.cache, which may
# list this machine's NVIDIA libcupti.so.13.)
LDSO="$(readelf -l "$PT/optional" | sed -n 's/.*interpreter: \(.*\)]$/\1/p') --inhibit-cache"
one only12 "^devcheck: CUPTI: held by another subscriber \(fake at $FAKE12_DIR/libcupti\.so\.12\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv:$FAKE12_DIR"
one both13 "^devcheck: CUPTI: held by another subscriber \(fake at $FAKE_DIR/libcupti\.so\.13\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv:$FAKE12_DIR:$FAKE_DIR"
EXTRA_PRELOAD=$PT/rt12/libcudart.so.12
one rt12first "^devcheck: CUPTI: held by another subscriber \(fake at $FAKE12_DIR/libcupti\.so\.12\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv:$FAKE12_DIR:$FAKE_DIR"
EXTRA_PRELOAD=
mkdir -p "$TMPD/venv12/lib/python3.10/site-packages/nvidia/cuda_cupti/lib"
cp "$FAKE12_DIR/libcupti.so.12" "$TMPD/venv12/lib/python3.10/site-packages/nvidia/cuda_cupti/lib/"
one wheel12 "^devcheck: CUPTI: held by another subscriber \(fake at $TMPD/venv12/lib/python3\.10/site-packages/nvidia/cuda_cupti/lib/libcupti\.so\.12\)$alone" \
    LD_LIBRARY_PATH="$TMPD/nv" VIRTUAL_ENV="$TMPD/venv12"
LDSO=
echo "ok: the libcupti loading rule"
