#!/bin/sh
# Correct multi-GPU PyTorch on 4 simulated GPUs, without devcheck, with the
# caching allocator on and off (PYTORCH_NO_CUDA_MEMORY_CACHING=1): each program
# runs to completion (exit 0, its OK line, no illegal address), although its
# kernels' by-value structs hold stale and uninitialised words.
. "$ROOT/tests/lib.sh"
need_pyenv
for prog in torch_elementwise torch_reduce torch_indexing torch_cat torch_embedding torch_cross_entropy \
            torch_to_devices torch_multi_device; do
    for caching in on off; do
        t=$TMPD/$prog.$caching
        if [ $caching = off ]; then nocache=1; else nocache=; fi
        on_sim_rt env SIMCUDA_DEVICES=4 ${nocache:+PYTORCH_NO_CUDA_MEMORY_CACHING=1} \
            "$PY" "$ROOT/tests/clients/$prog.py" >"$t.out" 2>"$t.err"
        rc=$?
        [ $rc -eq 0 ] || { sed 's/^/    > /' "$t.err" >&2; fail "$prog (caching $caching): exit status $rc"; }
        expect_grep "^$prog: OK devices=4( |\$)" "$t.out"
        expect_no_grep 'illegal memory access|ILLEGAL_ADDRESS' "$t.err"
    done
done
expect_grep '^torch_to_devices: OK devices=4 values=\[1\.5, 2\.5, -3\.0, 4\.25\]$' "$TMPD/torch_to_devices.off.out"
