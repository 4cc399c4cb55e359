#!/bin/sh
# make gpu-check: the real-GPU battery (tests/gpu/battery.py) on a machine
# with an NVIDIA driver; skips with one line where there is none.  CI never
# runs it (CI has no GPU).
#
#   sh tests/gpu/run.sh [battery options: --only a,b --timeout S]
#
# DEVCHECK   the devcheck command (default: build/bin/devcheck, else `devcheck`
#            on PATH: a pip-installed wheel's native command works too)
# GPU_OUT    where the logs, JSON files and recordings go (default build/gpu-check)
# PYTHON     the interpreter that has torch, triton, cupy, jax (default python3);
#            lib_progs.py needs numpy and finds NVIDIA's libraries through
#            torch's wheels (or the loader's path, or the nvidia-* wheels)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PYTHON=${PYTHON:-python3}
out=${GPU_OUT:-$root/build/gpu-check}

# A GPU: the driver's library answers cuInit and has a device.
if ! "$PYTHON" - <<'PY' 2>/dev/null
import ctypes, sys
try:
    cu = ctypes.CDLL("libcuda.so.1")
except OSError:
    sys.exit(1)
n = ctypes.c_int(0)
sys.exit(0 if cu.cuInit(0) == 0 and cu.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0 else 1)
PY
then
    echo "gpu-check: skipped: no NVIDIA GPU here (libcuda.so.1 missing, or cuInit/cuDeviceGetCount found no device)"
    exit 0
fi

dc=${DEVCHECK:-}
if [ -z "$dc" ]; then
    if [ -x "$root/build/bin/devcheck" ]; then dc=$root/build/bin/devcheck
    else dc=$(command -v devcheck) || { echo "gpu-check: ERROR: no devcheck (build it, or set DEVCHECK)" >&2; exit 2; }
    fi
fi
mkdir -p "$out" || exit 2
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

probe=
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
if [ -x "$nvcc" ]; then
    "$nvcc" -g -O1 -cudart shared -o "$out/probe" "$here/probe.cu" -lcuda && probe=$out/probe
fi
[ -n "$probe" ] || echo "gpu-check: no nvcc: the CUDA C programs are left out"

exec "$PYTHON" "$here/battery.py" --devcheck "$dc" --out "$out" ${probe:+--probe "$probe"} "$@"
