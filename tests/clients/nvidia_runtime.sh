#!/bin/sh
# NVIDIA's own libcudart.so.13 (from the nvidia-cuda-runtime wheel) on the
# sim: it asks for NVIDIA's private export tables, and the sim says so in one
# line naming it; the call fails with cudaErrorNotSupported (801).  PyTorch,
# which carries that runtime, sees the sim's 4 devices under devcheck --sim 4
# (the wrapper preloads the sim's runtime).
. "$ROOT/tests/lib.sh"
need_pyenv
rt=$("$PY" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13", "lib", "libcudart.so.13"))')
[ -f "$rt" ] || fail "no NVIDIA libcudart.so.13 in the venv ($rt)"
on_sim env SIMCUDA_DEVICES=4 "$PY" -c "
import ctypes
rt = ctypes.CDLL('$rt')
n = ctypes.c_int(-1)
print('status', rt.cudaGetDeviceCount(ctypes.byref(n)), rt.cudaGetDeviceCount(ctypes.byref(n)))
" >"$TMPD/rt.out" 2>"$TMPD/rt.err"
expect_eq "cudaGetDeviceCount" "status 801 801" "$(cat "$TMPD/rt.out")"
expect_eq "lines naming it" 1 "$(grep -c 'asked for NVIDIA' "$TMPD/rt.err")"
expect_grep "^simcuda: libcudart\.so\.13 asked for NVIDIA's private export table \{[0-9a-f-]{36}\}; NVIDIA's own runtime cannot run on the simulated GPUs$" "$TMPD/rt.err"
"$DEVCHECK_BIN" --sim 4 -- "$PY" -c 'import torch; print("torch devices", torch.cuda.device_count())' \
    >"$TMPD/w.out" 2>"$TMPD/w.err"
expect_eq "torch under devcheck --sim 4" "torch devices 4" "$(cat "$TMPD/w.out")"
