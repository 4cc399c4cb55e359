#!/bin/sh
# devcheck's signature parser (core/kernel/mangle.c) on every kernel of PyTorch's
# CUDA library: each kernel's mangled name against its host stub's (nvcc
# gives the stub the kernel's parameters, pointers as pointers): every name
# understood, the same parameter count, no parameter called a pointer that
# the stub does not pass as one (test_evidence --stubs).
. "$ROOT/tests/lib.sh"
need_pyenv
lib=$("$PY" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))') ||
    fail "torch is not importable"
[ -f "$lib" ] || fail "no $lib"
strings -n 20 "$lib" | grep '^_ZL\{0,1\}[0-9]*__device_stub__Z' >"$TMPD/stubs" || fail "no kernel stubs in $lib"
"$BUILD/tests/unit/test_evidence" --stubs "$TMPD/stubs" >"$TMPD/out" 2>&1 || { cat "$TMPD/out" >&2; fail "test_evidence --stubs"; }
cat "$TMPD/out"
n=$(sed -n 's/^stubs: \([0-9]*\) kernels, \([0-9]*\) understood.*/\1 \2/p' "$TMPD/out")
set -- $n
[ "${1:-0}" -gt 1000 ] || fail "too few kernels found in $lib: ${1:-0}"
expect_eq "every kernel name understood" "$1" "$2"
