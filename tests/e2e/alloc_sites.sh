#!/bin/sh
# "Where the memory came from": for each finding on a device allocation, the
# allocation stack's innermost program frame is the sample's line that
# allocated the offending operand (checked against the source text, so the
# test follows edits of the samples).  Pageable host memory has no CUDA
# allocation site.  Three ways: backend=both, interpose and cupti (where
# CUPTI's exit callbacks record the allocations).
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_LIB" "$SIM_DIR/libcudart.so.13" "$SIM_DIR/libcuda.so.1"

# check_alloc NAME SOURCE TEXT: the finding of sample NAME has an allocation
# site in samples/SOURCE whose line contains TEXT (a fixed string); $b is the
# backend.
check_alloc() {
    t=$TMPD/$1.$b
    need "$SAMPLES/$1"
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/$1"
    canon "$1" "$t.json" "$t.canon" "$b"
    python3 "$E2E/findings.py" --program "$1" --alloc "$t.json" >"$t.alloc"
    site=$(sed -n 's/^[a-z_]* severity=.* alloc=\([^ ]*\)$/\1/p' "$t.alloc")
    [ "$(echo "$site" | wc -l)" = 1 ] || fail "$1, backend=$b: expected one finding, got: $site"
    [ "${site%:*}" = "$2" ] || {
        python3 -c 'import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o["type"] == "finding":
        print("    alloc_stack:", json.dumps(o["alloc_stack"]))' "$t.json" >&2
        fail "$1, backend=$b: allocation site '$site' is not in $2 (no frame of the program in the allocation stack)"
    }
    sed -n "${site##*:}p" "$ROOT/samples/$2" | grep -Fq -- "$3" ||
        fail "$1, backend=$b: allocation site $site is not the line with '$3'"
}

for b in $BACKENDS; do
    check_alloc vision_merge vision_merge.cu 'cudaMalloc(&features'
    check_alloc embedding_lookup embedding_lookup.cu 'cudaMalloc(&ids,'
    check_alloc cross_entropy cross_entropy.cu 'cudaMalloc(&labels,'
    check_alloc pipeline_struct pipeline_struct.cu 'cudaMalloc(&out[s]'
    check_alloc driver_api driver_api.cu 'pcuMemAlloc(&cache'
    check_alloc driver_api_rt driver_api.cu 'pcuMemAlloc(&cache'
    check_alloc pipeline_peer pipeline_peer.cu 'cudaMalloc(&out[s]'
    # The host ids were never allocated through CUDA: no allocation site.
    t=$TMPD/host_tokens.$b
    run "$t" under_devcheck env DEVCHECK_OPTIONS="backend=$b:json_path=$t.json" "$SAMPLES/host_tokens"
    canon host_tokens "$t.json" "$t.canon" "$b"
    python3 "$E2E/findings.py" --program host_tokens --alloc "$t.json" >"$t.alloc"
    expect_grep '^host_memory .* alloc=-$' "$t.alloc"
done
echo "ok: allocation sites"
