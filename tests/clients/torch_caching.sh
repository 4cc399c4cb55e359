#!/bin/sh
# The wrapper leaves PyTorch's caching allocator as it is (issue 27), on 4
# simulated GPUs (torch_caching.py, one mode per run):
#  - the program sees no PYTORCH_NO_CUDA_MEMORY_CACHING;
#  - a torch.cuda.graph capture and replay, torch.compile(mode=
#    "reduce-overhead") (cudagraph trees, no cudagraph skip), expandable
#    segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True), a
#    DataLoader with two forked workers and torch.profiler's memory events
#    (the allocator's reports reach libc10.so's function through devcheck's)
#    print under the default wrapper what they print without devcheck, exit
#    0, and get no finding;
#  - what the wrapper's old default did to them: with caching off the
#    capture is invalidated and reduce-overhead refuses its storages (as on
#    an H200);
#  - each tensor's own block is named with caching on: a Triton launch on
#    cuda:0 over a tensor made on cuda:1 by a graph capture (its private
#    pool), the capture's second block: the finding's allocation line is
#    that tensor's, the operand a block inside a segment; the same for
#    triton_add.py --bug --peer with expandable segments (VMM-mapped
#    pages).  Both launch over peer access (a peer_access warning): without
#    it Triton's launcher is refused the pointer and raises, as on a GPU.
. "$ROOT/tests/lib.sh"
need_pyenv
DEVCHECK=$BUILD/bin/devcheck
CL=$ROOT/tests/clients
cd "$CL"
export TORCHINDUCTOR_CACHE_DIR=$TMPD/inductor
unset PYTORCH_NO_CUDA_MEMORY_CACHING PYTORCH_CUDA_ALLOC_CONF
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
canon() { python3 "$CL/pyfindings.py" "$1" || fail "no JSON report: $1"; }

"$DEVCHECK" -- "$PY" torch_caching.py env >"$TMPD/env.out" 2>"$TMPD/env.err" || fail "env: status $?"
expect_grep '^torch_caching: env PYTORCH_NO_CUDA_MEMORY_CACHING=unset$' "$TMPD/env.out"

same() {    # same MODE [ENV=VALUE]: the default wrapper changes nothing
    m=$1; shift
    on_sim_rt env SIMCUDA_DEVICES=4 "$@" "$PY" torch_caching.py "$m" >"$TMPD/$m.plain.out" 2>"$TMPD/$m.plain.err" ||
        { tail "$TMPD/$m.plain.err" >&2; fail "$m without devcheck: status $?"; }
    env "$@" "$DEVCHECK" --json "$TMPD/$m.json" -- "$PY" torch_caching.py "$m" >"$TMPD/$m.dc.out" 2>"$TMPD/$m.dc.err" ||
        { tail "$TMPD/$m.dc.err" >&2; fail "$m under devcheck: status $?"; }
    expect_grep "^torch_caching: $m " "$TMPD/$m.plain.out"
    expect_eq "$m: output under devcheck" "$(grep '^torch_caching:' "$TMPD/$m.plain.out")" \
        "$(grep '^torch_caching:' "$TMPD/$m.dc.out")"
    expect_eq "$m: findings" "summary errors=0 launches=$(canon "$TMPD/$m.json" | sed -n 's/.*launches=//p')" \
        "$(canon "$TMPD/$m.json")"
}
same graph
expect_grep '^torch_caching: graph replayed y=\[10\.0, 11\.0, .*, 17\.0\] tmp=\[10\.0, .*, 17\.0\]$' "$TMPD/graph.dc.out"
same compile
expect_grep '^torch_caching: compile shape=\(16,\) cudagraph_skips=0$' "$TMPD/compile.dc.out"
same expandable PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
expect_grep '^torch_caching: expandable conf=expandable_segments:True big=6291456\.0 again=15728640\.0 small=\[1\.0, 3\.0' \
    "$TMPD/expandable.dc.out"
same loader
expect_grep '^torch_caching: loader sum=112\.0$' "$TMPD/loader.dc.out"
same profiler
expect_grep '^torch_caching: profiler memory_events=[1-9]' "$TMPD/profiler.dc.out"

# caching off (the wrapper's old default): what broke
PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$DEVCHECK" -- "$PY" torch_caching.py graph >"$TMPD/graph.off.out" 2>"$TMPD/graph.off.err" &&
    fail "graph capture with caching off: expected it to fail"
expect_grep 'operation not permitted when stream is capturing|capture sequence on the stream has been invalidated' "$TMPD/graph.off.err"
PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$DEVCHECK" -- "$PY" torch_caching.py compile >"$TMPD/compile.off.out" 2>"$TMPD/compile.off.err" &&
    fail "reduce-overhead with caching off: expected it to fail"
expect_grep 'storage data ptrs are not allocated in pool' "$TMPD/compile.off.err"

# each tensor's own block: a graph's private pool, expandable segments
block() {   # block NAME WANT-CANON MEMORY PROGRAM [ARGS]: one finding on a block of MEMORY, not at offset 0
    name=$1 want=$2 mem=$3; shift 3
    "$DEVCHECK" --json "$TMPD/$name.json" -- "$PY" "$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    expect_eq "$name: status" 0 $?
    expect_eq "$name" "$want" "$(canon "$TMPD/$name.json" | grep -v '^summary')"
    python3 - "$TMPD/$name.json" "$mem" <<'PY' || fail "$name: the operand is not a block inside a segment"
import json, sys
f = [r for r in map(json.loads, open(sys.argv[1])) if r.get("kind") == "peer_access"][0]
o = f["operand"]
sys.exit(0 if o["memory"] == sys.argv[2] and o["offset"] == 0 and o["segment"]["offset"] > 0
         and o["segment"]["size"] >= o["alloc_size"] and "alloc_segment" not in f else 1)
PY
    expect_grep "^    operand: param 0 \([a-z_]+\), word \+0 = 0x[0-9a-f]+: offset 0 in a [0-9]+-byte .* block \(at offset [1-9][0-9]* of a [0-9]+-byte caching allocator segment\)" \
        "$TMPD/$name.err"
    expect_grep '^    allocated at \(Python\):$' "$TMPD/$name.err"
}
block pool "peer_access kernel=bump launch=$(at torch_caching.py '# BUG') alloc=$(at torch_caching.py '# POOL') nvtx=-" \
    device torch_caching.py pool
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
    block expandable_bug "peer_access kernel=add_kernel launch=$(at triton_add.py '# BUG') alloc=$(at triton_add.py 'x = torch.tensor(X, device="cuda:1")') nvtx=-" \
    vmm triton_add.py --bug --peer
python3 "$ROOT/tests/unit/jsonschema_lite.py" "$ROOT/report/finding.schema.json" "$TMPD"/*.json ||
    fail "JSON records do not match report/finding.schema.json"
exit 0
