#!/bin/sh
# The buggy client programs under devcheck (bare LD_PRELOAD, the sim's runtime
# preloaded after it): exactly one device_mismatch each, naming the kernel,
# the parameter, the launch device 0 and the owner device 1 (from the JSON
# report, tests/e2e/findings.py); the program still faults like a GPU (exit
# 3).  Under mode=migrate the same finding is "migrated" and the program
# prints the right result.  Triton's missing device guard never launches:
# its launcher is refused the tensor's device pointer and raises, as on a
# GPU, in both modes (no launch to check or migrate); the program catches
# the ValueError and exits 3, and bare LD_PRELOAD has no Python hook to
# explain the exception, so devcheck reports the refusal at exit (one
# pointer_refused, framework "driver", at the call's and the allocation's
# .py lines; tests/clients/refusal.sh has the hook's explanation).
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
check() {   # check NAME EXPECTED-FINDING RESULT PROGRAM [ARGS]
    name=$1 want=$2 result=$3; shift 3
    for mode in report migrate; do
        t=$TMPD/$name.$mode
        opts=json_path=$t.json
        [ $mode = migrate ] && opts=$opts:mode=migrate
        under_devcheck_rt env SIMCUDA_DEVICES=4 DEVCHECK_OPTIONS="$opts" "$PY" "$@" >"$t.out" 2>"$t.err"
        rc=$?
        python3 "$ROOT/tests/e2e/findings.py" "$t.json" | sed 's/ at=[^ ]*//' >"$t.canon" || fail "$name: no report"
        if [ $mode = report ]; then
            expect_eq "$name: status" 3 "$rc"
            expect_eq "$name: findings" "$want
summary errors=1 warnings=0 launches=1 unchecked=0" "$(cat "$t.canon")"
        else
            expect_eq "$name (migrate): status" 0 "$rc"
            expect_eq "$name (migrate): finding" "$want action=migrated" "$(sed -n 1p "$t.canon")"
            expect_grep "$result" "$t.out"
        fi
    done
}
check cuda_bindings "device_mismatch severity=error kernel=scale api=cuLaunchKernel param=0 launch=0 owner=1 memory=device count=1" \
    '^cuda_bindings_bug: result=\[0\.0, 2\.0, 4\.0, 6\.0, 8\.0, 10\.0, 12\.0, 14\.0\]$' cuda_bindings_bug.py
check numba "device_mismatch severity=error kernel=add api=cuLaunchKernelEx param=4 launch=0 owner=1 memory=device count=1" \
    '^numba_bug: result=\[10\.0, 11\.0, 12\.0, 13\.0, 14\.0, 15\.0, 16\.0, 17\.0\]$' numba_bug.py
check ext "device_mismatch severity=error kernel=guard_add api=__cudaLaunchKernel param=0 launch=0 owner=1 memory=device count=1" \
    '^ext_add: result=\[11\.0, 22\.0, 33\.0, 44\.0\]$' ext_add.py --bug
# mode=migrate copies the tensor's block (PyTorch's caching allocator: 512
# bytes for 4 floats), not the 2 MiB segment holding it (issue 41)
moved=$(python3 -c 'import json, sys
print(sum(json.loads(l).get("migration", {}).get("bytes", 0) for l in open(sys.argv[1]) if "\"finding\"" in l))' "$TMPD/ext.migrate.json")
[ "$moved" -gt 0 ] && [ "$moved" -le 4096 ] || fail "ext (migrate): $moved bytes copied for a 16-byte tensor (its block: 512)"
for mode in report migrate; do
    t=$TMPD/triton.$mode
    opts=json_path=$t.json
    [ $mode = migrate ] && opts=$opts:mode=migrate
    under_devcheck_rt env SIMCUDA_DEVICES=4 DEVCHECK_OPTIONS="$opts" "$PY" triton_add.py --bug >"$t.out" 2>"$t.err"
    expect_eq "triton ($mode): status" 3 "$?"
    expect_grep '^triton_add: refused: Pointer argument cannot be accessed from Triton \(cpu tensor\?\)$' "$t.out"
    python3 "$ROOT/tests/e2e/findings.py" "$t.json" | sed 's/ at=[^ ]*//' >"$t.canon" || fail "triton ($mode): no report"
    expect_eq "triton ($mode): findings" "pointer_refused severity=error kernel=- api=driver param=- launch=0 owner=1 memory=- count=1
summary errors=1 warnings=0 launches=0 unchecked=0" "$(cat "$t.canon")"
    call=$(grep -n 'BUG: no torch.cuda.device(x.device) guard' triton_add.py | cut -d: -f1)
    alloc=$(grep -n 'x = torch.tensor(X, device="cuda:1")' triton_add.py | cut -d: -f1)
    expect_grep "^==devcheck== ERROR: pointer_refused: driver refused a pointer of cuda:1 with cuda:0 current: the program exited with status 3 after this refusal" "$t.err"
    expect_grep "^    at triton_add.py:$call in <module>\$" "$t.err"
    expect_grep "^      the refused pointer: cuda:1, allocated at triton_add.py:$alloc in <module>\$" "$t.err"
done
