#!/bin/sh
# Python clients recorded and replayed: a Triton kernel over another
# device's memory (its classes from its image: the record carries what the
# image said; launched over peer access, a peer_access warning: without it
# Triton's launcher is refused the pointer and never launches, as on a GPU)
# and a buggy numba kernel (numba's array ABI in its mangled name) under
# devcheck with record_launches=DIR; `devcheck replay DIR/*.jsonl` gives the
# live run's findings (kind, kernel, parameter, launch and owner device).
. "$ROOT/tests/lib.sh"
need_pyenv
cd "$ROOT/tests/clients"
canon() { python3 "$ROOT/tests/e2e/findings.py" "$1" | sed 's/ at=[^ ]*//; s/ api=[^ ]*//'; }
for c in "triton peer_access.severity=warning triton_add.py --bug --peer" \
         "numba device_mismatch.severity=error numba_bug.py"; do
    set -- $c
    name=$1 kind=$(echo "$2" | tr . ' '); shift 2
    t=$TMPD/$name
    under_devcheck_rt env SIMCUDA_DEVICES=4 DEVCHECK_OPTIONS="json_path=$t.live.json:record_launches=$t.rec" \
        "$PY" "$@" >"$t.out" 2>"$t.err"
    canon "$t.live.json" >"$t.live" || fail "$name: no live report"
    expect_grep "^$kind " "$t.live"
    "$DEVCHECK_BIN" replay --json "$t.rep.json" "$t.rec"/*.jsonl >"$t.rep.out" 2>"$t.rep.err"
    canon "$t.rep.json" >"$t.rep" || fail "$name: no replay report"
    grep -v '^summary' "$t.live" >"$t.live.f"
    grep -v '^summary' "$t.rep" >"$t.rep.f"
    cmp -s "$t.live.f" "$t.rep.f" || { diff -u "$t.live.f" "$t.rep.f" >&2; fail "$name: the replay's findings differ"; }
done
echo "ok: Python clients recorded and replayed"
