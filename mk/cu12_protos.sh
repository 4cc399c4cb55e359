#!/bin/sh
# Whether an older major version of a library may share devcheck's hooks
# (preload/hooks_lib.def's DC_LIBOLD): compares, for every library with a
# DC_LIBOLD row, the declaration of each of its DC_LIBFN / DC_LIBAUX
# functions in the toolkit's headers (CUDA_HOME/include) and in the older
# version's (the include directories given, e.g. the nvidia-*-cu12 wheels'
# nvidia/cublas/include), as gcc -aux-info prints them; and the value of
# every enumerator the library hooks read (preload/hooks_lib.h, hooks_lib.c
# and each library's preload/hooks_<library>.c).  Prints each difference; exits
# 1 when there is one, 0 when every hooked function may be exported for the
# older version too.  A maintainer's check before adding a DC_LIBOLD row
# (the older headers are not part of the build).
# Usage: sh mk/cu12_protos.sh OLD_INCLUDE_DIR...
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
CC=${CC:-gcc}
[ $# -gt 0 ] || { echo "usage: $0 OLD_INCLUDE_DIR..." >&2; exit 2; }
old_inc=
for d in "$@"; do old_inc="$old_inc -I$d"; done
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
# the files of the library hooks: the machinery, then one per DC_LIB library
lib_files="$ROOT/preload/hooks_lib.h $ROOT/preload/hooks_lib.c $(
    printf '#define DC_LIB(id, soname, version) LIB id\n#include "preload/hooks_lib.def"\n' |
        $CC -E -P -I"$ROOT" -x c - | awk '$1 == "LIB" { printf "%s/preload/hooks_%s.c\n", root, tolower($2) }' root="$ROOT")"
# the headers hooks_lib.h includes (cublas_v2.h first: CUDA 12's cublas_api.h
# wants its CUBLASAPI)
{
    echo '#include <cublas_v2.h>'
    grep '^#include <' "$ROOT/preload/hooks_lib.h" | grep -v '<dlfcn.h>\|<stdio.h>\|<string.h>\|<unistd.h>'
} >"$tmp/h.c"
# the functions of the libraries with an older version: "name"
printf '#define DC_LIBOLD(id, node) OLD id\n#define DC_LIBFN(id, n) FN id n\n#define DC_LIBAUX(id, n) FN id n\n#include "preload/hooks_lib.def"\n' |
    $CC -E -P -I"$ROOT" -x c - | awk '$1 == "OLD" { old[$2] = 1 } $1 == "FN" && ($2 in old) { print $3 }' >"$tmp/fns"
[ -s "$tmp/fns" ] || { echo "no DC_LIBOLD library in preload/hooks_lib.def" >&2; exit 2; }
# the enumerators the library hooks read
# shellcheck disable=SC2086
cat $lib_files | grep -oE '\b(CUBLAS|CUBLASLT|CUFFT|CUSOLVER|CUSPARSE|CUDNN|NCCL)_[A-Z0-9_]+\b' |
    grep -v '_HOOK$' | sort -u >"$tmp/enums"
{
    cat "$tmp/h.c"
    echo '#include <stdio.h>'
    echo 'int main(void) {'
    sed 's/.*/    printf("%s %lld\\n", "&", (long long)(&));/' "$tmp/enums"
    echo '    return 0; }'
} >"$tmp/e.c"
status=0
for v in new old; do
    inc=-I$CUDA_HOME/include
    [ $v = old ] && inc="$old_inc $inc"
    # shellcheck disable=SC2086
    $CC -std=gnu11 -fsyntax-only -aux-info "$tmp/aux.$v" $inc "$tmp/h.c" ||
        { echo "cannot compile the $v headers" >&2; exit 2; }
    # shellcheck disable=SC2086
    $CC -std=gnu11 -o "$tmp/e.$v" $inc "$tmp/e.c" && "$tmp/e.$v" >"$tmp/enums.$v" ||
        { echo "cannot read the enumerators with the $v headers" >&2; exit 2; }
done
while read -r f; do
    a=$(grep -h "[ *]$f (" "$tmp/aux.new" | sed 's,/\*.*\*/,,')
    b=$(grep -h "[ *]$f (" "$tmp/aux.old" | sed 's,/\*.*\*/,,')
    from=$(grep -h "[ *]$f (" "$tmp/aux.old" | sed -n 's,^/\* \([^:]*\):.*,\1,p' | head -1)
    case $(realpath -m "$from") in
    "$(realpath -m "$CUDA_HOME")"/*) b=" (only the toolkit's header declares it)" ;;
    esac
    if [ -z "$a" ] || [ "$a" != "$b" ]; then
        printf 'differs: %s\n  new:%s\n  old:%s\n' "$f" "${a:- (none)}" "${b:- (none)}"
        status=1
    fi
done <"$tmp/fns"
if ! diff "$tmp/enums.new" "$tmp/enums.old" >"$tmp/enums.diff"; then
    echo "enumerators differ (< new, > old):"
    grep '^[<>]' "$tmp/enums.diff"
    status=1
fi
[ $status = 0 ] && echo "$(wc -l <"$tmp/fns") functions and $(wc -l <"$tmp/enums") enumerators: the same in both"
exit $status
