#!/bin/sh
# The correct client programs under devcheck (bare LD_PRELOAD, the sim's
# runtime preloaded after it): 0 errors and no warning but legal peer access
# or pinned/registered host memory, though PyTorch's kernels take by-value
# structs whose unused words hold stale device and host addresses, packed
# integer pairs and end pointers (only the words the kernels' own evidence
# calls pointers are checked).  Every PyTorch program with the caching
# allocator on and off; the default backend for all, interpose and cupti for
# some.  Each still runs to its OK line, and none makes a call past the
# hooks that would turn CUPTI's launch callbacks on beside the interposer.
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
clean() {   # clean NAME OPTIONS ENV... -- PROGRAM [ARGS]
    name=$1 opts=$2; shift 2
    t=$TMPD/$name
    under_devcheck_rt env SIMCUDA_DEVICES=4 DEVCHECK_OPTIONS="json_path=$t.json:verbosity=1${opts:+:$opts}" "$@" \
        >"$t.out" 2>"$t.err"
    rc=$?
    [ $rc -eq 0 ] || { sed 's/^/    > /' "$t.err" >&2; fail "$name: exit status $rc"; }
    expect_grep ': OK devices=4' "$t.out"
    # every call came through the hooks: with the default backend CUPTI's
    # launch and allocation callbacks stayed off (FORMAT.md, detection paths)
    expect_no_grep 'past the interposer' "$t.err"
    python3 - "$t.json" "$name" <<'PY' || fail "$name: findings on correct code (above)"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
last = {r["id"]: r for r in recs if r["type"] == "finding"}
summary = recs[-1]
bad = [r for r in last.values()
       if r["severity"] == "error"
       or (r["severity"] == "warning"
           and not (r["kind"] == "peer_access"
                    or (r["kind"] == "host_memory" and r["operand"]["memory"] in ("pinned", "registered"))))]
for r in bad:
    print("    %s: %s %s %s" % (sys.argv[2], r["kind"], r["kernel_mangled"], r["operand"]), file=sys.stderr)
ok = summary["type"] == "summary" and summary["errors"] == 0 and not bad
sys.exit(0 if ok else 1)
PY
}
for prog in torch_elementwise torch_reduce torch_indexing torch_cat torch_embedding torch_cross_entropy \
            torch_to_devices torch_multi_device; do
    clean "$prog.cache" "" "$PY" "$prog.py"
    clean "$prog.nocache" "" PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$PY" "$prog.py"
done
for backend in interpose cupti; do
    clean "torch_reduce.$backend" "backend=$backend" PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$PY" torch_reduce.py
    clean "torch_multi_device.$backend" "backend=$backend" "$PY" torch_multi_device.py
    clean "torch_indexing.$backend" "backend=$backend" "$PY" torch_indexing.py
done
clean cuda_bindings_correct "" "$PY" cuda_bindings_correct.py
clean cuda_core_correct "" "$PY" cuda_core_correct.py
clean numba_correct "" "$PY" numba_correct.py
clean triton_add "" "$PY" triton_add.py
clean ext_add "" "$PY" ext_add.py
# the kernels were checked, not skipped
python3 -c '
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
sys.exit(0 if s["launches_checked"] > 0 and s["launches_unchecked"] == 0 else 1)' "$TMPD/torch_reduce.nocache.json" \
    || fail "torch_reduce: launches not all checked"
