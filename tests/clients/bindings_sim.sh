#!/bin/sh
# cuda-bindings (driver API + NVRTC), cuda-core and numba-cuda on 4 simulated
# GPUs, without devcheck: correct programs compute on every device (host twins
# loaded with ctypes) and print the right numbers; the buggy ones (a kernel on
# device 0 given device 1's buffer, no peer access) fault like a GPU:
# CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization (exit status 3).
. "$ROOT/tests/lib.sh"
need_pyenv
run_prog() {    # run_prog NAME [ARGS]: $TMPD/NAME.{out,err}, status in $rc
    name=$1; shift
    (cd "$ROOT/tests/clients" && on_sim env SIMCUDA_DEVICES=4 "$PY" "$name.py" "$@") \
        >"$TMPD/$name.out" 2>"$TMPD/$name.err"
    rc=$?
}
run_prog cuda_bindings_correct
expect_eq "cuda_bindings_correct: status" 0 "$rc"
expect_grep '^cuda_bindings_correct: OK devices=4 result=\[0\.0, 2\.0, 4\.0, 6\.0, 8\.0, 10\.0, 12\.0, 14\.0\]$' "$TMPD/cuda_bindings_correct.out"
run_prog cuda_core_correct
expect_eq "cuda_core_correct: status" 0 "$rc"
expect_grep '^cuda_core_correct: OK devices=4 result=\[0\.0, 2\.0, 4\.0, 6\.0, 8\.0, 10\.0, 12\.0, 14\.0\]$' "$TMPD/cuda_core_correct.out"
run_prog numba_correct
expect_eq "numba_correct: status" 0 "$rc"
expect_grep '^numba_correct: OK devices=4 result=\[10\.0, 11\.0, 12\.0, 13\.0, 14\.0, 15\.0, 16\.0, 17\.0\]$' "$TMPD/numba_correct.out"
run_prog cuda_bindings_bug
expect_eq "cuda_bindings_bug: status" 3 "$rc"
expect_grep '^cuda_bindings_bug: fault: CUDA_ERROR_ILLEGAL_ADDRESS$' "$TMPD/cuda_bindings_bug.out"
run_prog numba_bug
expect_eq "numba_bug: status" 3 "$rc"
expect_grep '^numba_bug: fault: .*CUDA_ERROR_ILLEGAL_ADDRESS' "$TMPD/numba_bug.out"
