#!/bin/sh
# The raise-time hook on every CPython 3.9-3.13 under pyenv (none of which
# has PyTorch but the virtualenv's): a stand-in libtorch_python.so
# (fake_torch_python.cc) defines and calls torch::translate_exception_to_python
# as PyTorch does, and a stand-in torch package (fake_torch/) gives the hook
# the types it looks for.  Under the wrapper, a device error raised through it
# and caught twice: the program sees the same RuntimeError, message and
# traceback as without devcheck, each exception carries devcheck's note
# (add_note on 3.11+, __notes__ before), one finding counted twice, leading
# with the user's line and naming the op's arguments; an unrelated error gets
# no note.  Without devcheck, no note.  Raised 40 library frames (site-packages)
# below the user's line: the report still leads with it and names the
# tensors as the user does (the user's frame is handed over past the 32
# innermost).
. "$ROOT/tests/lib.sh"
DEVCHECK=$BUILD/bin/devcheck
CL=$ROOT/tests/clients
FAKE=$BUILD/tests/clients/fake_torch/libtorch_python.so
[ -f "$FAKE" ] || fail "$FAKE not built"
at() { echo "$(basename "$1"):$(grep -n "$2" "$1" | head -n 1 | cut -d: -f1)"; }
P=$CL/raise_versions.py
want="framework_device_error at=$(at "$P" '# OP$') tensors=a@cuda:0@-,b@cpu@- nvtx=- hint=b = b.to(a.device)
framework_device_error at=$(at "$P" '# DEEP$') tensors=hidden@cuda:0@-,input_ids@cpu@made:$(at "$P" '^input_ids = ') nvtx=- hint=input_ids = input_ids.to(hidden.device)"
msg="Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!"
n=0
for p in $(ls -d /root/.pyenv/versions/3.9.* /root/.pyenv/versions/3.1[0-3].* 2>/dev/null); do
    v=$(basename "$p")
    PYTHONPATH=$CL/fake_torch:$CL/fake_torch/site-packages "$DEVCHECK" --sim 4 --json "$TMPD/$v.json" -- "$p/bin/python3" "$P" "$FAKE" \
        >"$TMPD/$v.out" 2>"$TMPD/$v.err" || { tail "$TMPD/$v.err" >&2; fail "$v: raise_versions.py failed"; }
    expect_grep '^raise_versions: done$' "$TMPD/$v.out"
    expect_eq "CPython $v: caught, with one note each" 2 "$(grep -Fxc "caught RuntimeError $msg tb op notes 1" "$TMPD/$v.out")"
    expect_grep '^deep: notes 1$' "$TMPD/$v.out"
    expect_grep '^unrelated index 5 is out of bounds for dimension 0 with size 2 notes 0$' "$TMPD/$v.out"
    expect_eq "CPython $v" "$want" "$(python3 "$CL/pyfindings.py" "$TMPD/$v.json" | grep '^framework_device_error')"
    grep -q '"count":2,' "$TMPD/$v.json" || fail "CPython $v: the finding is not counted twice"
    # without devcheck: the same exceptions, no note
    PYTHONPATH=$CL/fake_torch:$CL/fake_torch/site-packages on_sim "$p/bin/python3" "$P" "$FAKE" >"$TMPD/$v.plain" 2>&1 ||
        { tail "$TMPD/$v.plain" >&2; fail "$v: raise_versions.py failed without devcheck"; }
    sed 's/ notes 1$/ notes 0/' "$TMPD/$v.out" | diff -u "$TMPD/$v.plain" - >&2 ||
        fail "CPython $v: the program saw other exceptions than without devcheck"
    n=$((n + 1))
done
[ $n -ge 1 ] || fail "no pyenv CPython 3.9-3.13 found under /root/.pyenv/versions"
note "the raise hook explains and notes the error in $n CPython version(s)"
