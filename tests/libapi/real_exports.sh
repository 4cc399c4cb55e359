#!/bin/sh
# real_exports: every entry point devcheck hooks (preload/hooks_lib.def,
# with hooks_blas.def's rows) is one NVIDIA's real library exports, under
# the version devcheck exports it with: the toolkit's libcublas.so.13,
# libcublasLt.so.13, libcufft.so.12, libcusolver.so.12, libcudnn.so.9
# (name@@version, nm -D) and libnccl.so.2 (unversioned).  A hook of a name
# the library lacks would answer a program's reference or dlsym that finds
# nothing without devcheck (issue 37: devcheck defines no symbol a library
# version lacks); a typo in a table row fails here too.  A library the
# toolkit does not ship is skipped, and said so.
. "$ROOT/tests/lib.sh"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
printf '#define DC_LIBFN(id, n) FN id n\n#define DC_LIBCUR(id, n) FN id n\n#define DC_LIBNEW(id, n) FN id n\n#include "preload/hooks_lib.def"\n' |
    ${CC:-gcc} -E -P -I"$ROOT" -I"$CUDA_HOME/include" -x c - | awk '$1 == "FN" { print $2, $3 }' >"$TMPD/hooked"
[ -s "$TMPD/hooked" ] || fail "could not expand preload/hooks_lib.def"
grep -q '^CUBLAS cublasCaxpy_v2_64$' "$TMPD/hooked" || fail "hooks_blas.def's rows are not in the expansion"
n=0
for row in "CUBLAS libcublas.so.13 libcublas.so.13" "CUBLASLT libcublasLt.so.13 libcublasLt.so.13" \
           "CUFFT libcufft.so.12 libcufft.so.12" "CUSOLVER libcusolver.so.12 libcusolver.so.12" \
           "CUDNN libcudnn.so.9 libcudnn.so.9" "NCCL libnccl.so.2 -"; do
    set -- $row
    lib=$CUDA_HOME/lib64/$2
    if [ ! -e "$lib" ]; then
        note "$2: not in $CUDA_HOME/lib64, not compared"
        continue
    fi
    nm -D --defined-only "$lib" | awk '{ print $NF }' >"$TMPD/$1.syms"
    awk -v id="$1" '$1 == id { print $2 }' "$TMPD/hooked" >"$TMPD/$1.want"
    while read -r fn; do
        if [ "$3" = - ]; then
            grep -qx "$fn" "$TMPD/$1.syms" || fail "$fn: hooked, but $2 does not export it"
        else
            grep -qx "$fn@@$3" "$TMPD/$1.syms" || fail "$fn: hooked as $fn@@$3, but $2 does not export that"
        fi
        n=$((n + 1))
    done <"$TMPD/$1.want"
done
[ "$n" -gt 200 ] || fail "only $n hooked names compared"
echo "real_exports: $n hooked names, each exported by its real library"
