#!/bin/sh
# Findings in Python processes carry the script's own lines (JSON
# launch_python_stack / alloc_python_stack; the first frame in the user's
# code is the script's line), NVTX ranges, readable names:
#  - every CPython 3.9-3.13 under pyenv runs pylaunch.py (stdlib + ctypes)
#    against a CUDA library on the sim under the wrapper: the launch and the
#    allocation lines, the library's NVTX ranges, and the launch from a
#    thread that released the GIL while the main thread holds it (no
#    deadlock, frames kept);
#  - real clients (the venv's CPython): numba-cuda, cuda-bindings,
#    cuda-core, Triton (launching over peer access: a peer_access warning),
#    a torch extension: the buggy programs' launch and
#    allocation lines, the numba and Triton kernels' demangled names, the
#    hint in each client's words (cuda.to_device, cuMemcpyPeer of
#    cuda.bindings, Buffer.copy_to, tensor.to), numba's operand named as the
#    Python call passed it, and (under the wrapper) its parameter by the
#    kernel function's argument name (param 4 (x));
#  - demo/python/custom_kernel.py: Triton's refusal of another device's
#    tensor, before any launch, explained (pointer_refused) at its call and
#    allocation lines inside torch.cuda.nvtx.range_push("decoder.layer.3");
#  - --kernel-name-exclude=at::native in a torch process checks none of
#    PyTorch's own kernels (the names are demangled in a Python process).
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
CL=$ROOT/tests/clients
LIB=$BUILD/tests/clients/libpylaunch.so
[ -f "$LIB" ] || fail "$LIB not built"
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
canon() { python3 "$CL/pyfindings.py" "$1" || fail "no JSON report: $1"; }

# 1. every CPython
PL=$CL/pylaunch.py
want="device_mismatch kernel=touch launch=$(at "$PL" '# LAUNCH$') alloc=$(at "$PL" '# ALLOC$') nvtx=pylaunch.outer>pylaunch.inner
device_mismatch kernel=touch launch=$(at "$PL" '# LAUNCH2$') alloc=$(at "$PL" '# ALLOC2$') nvtx=pylaunch.outer>pylaunch.inner
summary errors=2 launches=2"
n=0
for p in $(ls -d /root/.pyenv/versions/3.9.* /root/.pyenv/versions/3.1[0-3].* 2>/dev/null); do
    v=$(basename "$p")
    "$DEVCHECK" --sim 4 --json "$TMPD/$v.json" -- "$p/bin/python3" "$PL" "$LIB" >"$TMPD/$v.out" 2>"$TMPD/$v.err" ||
        { tail "$TMPD/$v.err" >&2; fail "$v: pylaunch.py failed"; }
    expect_grep '^pylaunch: done$' "$TMPD/$v.out"
    expect_eq "CPython $v" "$want" "$(canon "$TMPD/$v.json")"
    n=$((n + 1))
done
[ $n -ge 1 ] || fail "no pyenv CPython 3.9-3.13 found under /root/.pyenv/versions"
note "Python frames and NVTX ranges right in $n CPython version(s)"

# 2. the real clients' buggy programs (bare LD_PRELOAD, as devcheck_buggy.sh)
cd "$CL"
client() {  # client NAME WANT HINT PROGRAM [ARGS]
    name=$1 want=$2 hint=$3; shift 3
    under_devcheck_rt env SIMCUDA_DEVICES=4 DEVCHECK_OPTIONS="json_path=$TMPD/$name.json" "$PY" "$@" \
        >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    expect_eq "$name" "$want" "$(canon "$TMPD/$name.json" | grep -v '^summary')"
    expect_grep "^    hint: $hint" "$TMPD/$name.err"
}
TORCH_HINT='the tensor lives on cuda:1: move it to the launch device \(tensor.to\("cuda:0"\)\), or launch the kernel where its data is \(with torch.cuda.device\("cuda:1"\):\)$'
client numba "device_mismatch kernel=__main__::add launch=$(at numba_bug.py '# BUG') alloc=$(at numba_bug.py '# lives on device 1') nvtx=-" \
    'the array lives on cuda:1: make it on the launch device \(with cuda.gpus\[0\]: cuda.to_device\(...\)\), or launch the kernel under cuda.gpus\[1\]$' \
    numba_bug.py
expect_grep '^    argument: x, argument 0 of add \(its data pointer\)$' "$TMPD/numba.err"
# issue 41: under the wrapper (its Python hook), numba's parameters named as
# the kernel's Python function names its arguments (param 4: x's data pointer)
"$DEVCHECK" --sim 4 --json "$TMPD/numbaw.json" -- "$PY" numba_bug.py >"$TMPD/numbaw.out" 2>"$TMPD/numbaw.err"
expect_grep '^    operand: param 4 \(x\), word \+0 = ' "$TMPD/numbaw.err"
expect_eq "numba under the wrapper: JSON param_name" "x" "$(python3 -c '
import json, sys
print(" ".join(json.loads(l)["operand"].get("param_name", "-") for l in open(sys.argv[1]) if "\"finding\"" in l))' "$TMPD/numbaw.json")"
client bindings "device_mismatch kernel=scale launch=$(at cuda_bindings_bug.py '# BUG') alloc=$(at cuda_bindings_bug.py '# the buffer lives on device 1') nvtx=-" \
    'move the operand to cuda:0 before the launch \(cuMemcpyPeer / cudaMemcpyPeer of cuda.bindings\)' \
    cuda_bindings_bug.py
client core "device_mismatch kernel=scale launch=$(at cuda_core_bug.py '# BUG') alloc=$(at cuda_core_bug.py '# the buffer lives on device 1') nvtx=-" \
    'the buffer lives on cuda:1: copy it into a buffer of Device\(0\) \(Buffer.copy_to\(dst, stream=...\)\), or launch on a stream of Device\(1\)$' \
    cuda_core_bug.py
# Triton launches another device's tensor only with peer access (without,
# its launcher is refused the pointer and raises: no launch): a peer_access
# warning, with the same launch and allocation lines
client triton "peer_access kernel=add_kernel launch=$(at triton_add.py '# BUG') alloc=$(at triton_add.py 'x = torch.tensor(X, device="cuda:1")') nvtx=-" \
    'the kernel runs on cuda:0 but the tensor lives on cuda:1: launch it where its data is \(with torch.cuda.device\("cuda:1"\): around the launch\), or move the tensor to cuda:0 \(tensor.to\("cuda:0"\)\); legal as it is, but every access crosses NVLink/PCIe \(peer=ignore silences this\)$' \
    triton_add.py --bug --peer
client ext "device_mismatch kernel=guard_add launch=$(at ext_add.py '# BUG') alloc=$(at ext_add.py 'x = torch.tensor(X, device="cuda:1")') nvtx=-" \
    "$TORCH_HINT" ext_add.py --bug

python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"

# 3. demo/python/custom_kernel.py: Triton refuses the cuda:1 tensor with
# cuda:0 current, before any launch, as on a GPU, and devcheck explains the
# refusal (pointer_refused): at the script's call and allocation lines,
# inside the NVTX range decoder.layer.3 pushed from Python, the note on the
# exception; --fixed is clean.
CK=$ROOT/demo/python/custom_kernel.py
"$DEVCHECK" --json "$TMPD/ck.json" -- "$PY" "$CK" >"$TMPD/ck.out" 2>"$TMPD/ck.err" && fail "custom_kernel: status 0"
expect_grep '^ValueError: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$TMPD/ck.err"
expect_grep "^devcheck: pointer_refused: not a CPU tensor: cuda:1's memory, refused with cuda:0 current \(devcheck's report above\)\$" "$TMPD/ck.err"
expect_eq "custom_kernel: findings" "pointer_refused owner=cuda:1 current=cuda:0 param=0 at=$(at "$CK" 'scale_kernel\[') tensors=x@cuda:1@$(at "$CK" 'x = torch.ones'),out@cuda:1@$(at "$CK" 'out = torch.empty_like') nvtx=decoder.layer.3 hint=with torch.cuda.device(x.device): launch the kernel there (every tensor is on cuda:1)" \
    "$(canon "$TMPD/ck.json" | grep -v '^summary')"
"$DEVCHECK" --json "$TMPD/ckf.json" -- "$PY" "$CK" --fixed >"$TMPD/ckf.out" 2>"$TMPD/ckf.err" ||
    fail "custom_kernel --fixed: status $?"
expect_eq "custom_kernel --fixed: findings" "" "$(canon "$TMPD/ckf.json" | grep -v '^summary')"

# 4. PyTorch's kernels excluded by their demangled namespace
VM=$ROOT/demo/python/vision_merge.py
"$DEVCHECK" --json "$TMPD/all.json" -- "$PY" "$VM" --fixed >/dev/null 2>&1
"$DEVCHECK" --json "$TMPD/ex.json" --kernel-name-exclude=at::native -- "$PY" "$VM" --fixed >"$TMPD/ex.out" 2>&1
expect_grep '^vision_merge: OK' "$TMPD/ex.out"
all=$(canon "$TMPD/all.json" | sed -n 's/^summary .*launches=//p')
[ "${all:-0}" -gt 0 ] || fail "torch launched no kernel devcheck saw"
expect_eq "kernel_name_exclude=at::native: launches checked" "summary errors=0 launches=0" \
    "$(canon "$TMPD/ex.json" | grep '^summary')"
