# Sourced by the tests of a library call PyTorch's handle makes on the
# wrong device (tests/clients/torch_blas.sh, sim/tests/fft_torch.sh), after
# tests/lib.sh and need_pyenv.
#
# expect_libcall_wrong NAME PROG API ARG: `PROG wrong` on 2 simulated GPUs
# (the sim's library computes) makes API on cuda:0 with ARG on cuda:1, at
# its line `status = lib.API(`: without devcheck and under `devcheck --sim
# 2` alike it prints `NAME wrong: API returned 0`, then `NAME wrong:
# synchronize raised: ...illegal memory access` and exits 3, as on a GPU;
# devcheck's one finding is a device_mismatch of ARG at that call (cuda:0,
# owner cuda:1, at the .py line).
expect_libcall_wrong() {
    _n=$1 _p=$2 _api=$3 _arg=$4
    on_sim_rt env SIMCUDA_DEVICES=2 "$PY" "$_p" wrong >"$TMPD/plain.out" 2>"$TMPD/plain.err"
    expect_eq "$_n wrong without devcheck: status" 3 $?
    "$DEVCHECK_BIN" --sim 2 --json "$TMPD/wrong.json" -- "$PY" "$_p" wrong >"$TMPD/wrong.out" 2>"$TMPD/wrong.err"
    expect_eq "$_n wrong under devcheck: status" 3 $?
    for _f in plain wrong; do
        expect_grep "^$_n wrong: $_api returned 0\$" "$TMPD/$_f.out"
        expect_grep "^$_n wrong: synchronize raised: .*illegal memory access" "$TMPD/$_f.out"
    done
    _line=$(grep -n "status = lib.$_api(" "$_p" | cut -d: -f1)
    expect_eq "$_n wrong: findings" "device_mismatch $_api $_arg launch=0 owner=1 at=$_line" \
        "$("$PY" "$ROOT/tests/clients/libcall_findings.py" "$TMPD/wrong.json" "$_p")"
}
