#!/bin/sh
# libdevcheck.so exports exactly the hook table (preload/hooks.def), the
# library hooks (preload/hooks_lib.def, under their libraries' versions; NCCL
# unversioned: DEVCHECK_1) plus dlsym,
# exit and __libc_start_main, devcheck_framework_error and
# devcheck_framework_match (the Python hook's entries), devcheck_test_begin
# and devcheck_test_findings (the pytest plugin's), devcheck_pointer_refusal
# and devcheck_pointer_refused (the Python hook's refusal reporting),
# devcheck_kernel_params (a JIT kernel's parameter names),
# devcheck_python_cell (an IPython cell's file name),
# devcheck_report_on_stderr and devcheck_test_expect (the hook's and the
# plugin's),
# torch::translate_exception_to_python (PyTorch's errors at raise time),
# InitializeInjectionNvtx2 (the NVTX injection) and PyTorch's
# c10::reportMemoryUsageToProfiler (its allocator's blocks), with the right symbol
# versions (runtime hooks also under cudart 12 / 11.0 versions where the entry
# point exists there; CUPTI hooks under libcupti's 13 and 12, NVRTC hooks under
# libnvrtc's 13 and 12; library hooks also under their older version,
# hooks_lib.def's DC_LIBOLD: cuBLAS's .12, cuFFT's .11; glibc's at the
# target architecture's versions); not the entry points newer than library
# versions programs still run (DC_LIBNEW: NCCL 2.28's ncclAlltoAll...), nor
# under the older version those its older version lacks (DC_LIBCUR:
# cusolverDnXgeev).
. "$ROOT/tests/preload/common.sh"
need "$DEVCHECK_LIB"
nm -D --defined-only "$DEVCHECK_LIB" | awk '$2 != "A" { print $3 }' | sort >"$TMPD/nm"
[ -s "$TMPD/nm" ] || fail "nm -D found no symbols"
{
    cat <<'EOC' | ${CC:-gcc} -E -P -I"$ROOT" -x c - | tr -d ' ' | tr ';' '\n' | sed '/^$/d'
#define DC_DRV(n, r) n@@DEVCHECK_1;
#define DC_CUPTI(n) n@@libcupti.so.13;n@libcupti.so.12;
#define DC_NVRTC(n) n@@libnvrtc.so.13;n@libnvrtc.so.12;
#define OLD_DC_CUDA13(n)
#define OLD_DC_CUDA12(n) n@libcudart.so.12;
#define OLD_DC_CUDA11(n) n@libcudart.so.12;n@libcudart.so.11.0;
#define DC_RT(n, since) n@@libcudart.so.13;OLD_##since(n)
#include "preload/hooks.def"
#define DC_LIBFN(id, n) LIB_##id(n)
#define LIB_CUBLAS(n) n@@libcublas.so.13;
#define LIB_CUBLASLT(n) n@@libcublasLt.so.13;
#define LIB_NCCL(n) n@@DEVCHECK_1;
#define LIB_CUFFT(n) n@@libcufft.so.12;
#define LIB_CUDNN(n) n@@libcudnn.so.9;
#define LIB_CUSOLVER(n) n@@libcusolver.so.12;
#define DC_LIBNEW(id, n)
#include "preload/hooks_lib.def"
EOC
    # a library's older version (DC_LIBOLD): each of its hooks also as name@node
    cat <<'EOC' | ${CC:-gcc} -E -P -I"$ROOT" -x c - | awk '$1 == "OLD" { old[$2] = $3 } $1 == "FN" && ($2 in old) { print $3 "@" old[$2] }'
#define DC_LIBOLD(id, node) OLD id node
#define DC_LIBFN(id, n) FN id n
#define DC_LIBNEW(id, n)
#define DC_LIBCUR(id, n)
#include "preload/hooks_lib.def"
EOC
    # glibc's names at the target's base version (preload/arch.h)
    base=$(printf '#include "preload/arch.h"\nDC_GLIBC_BASE_NODE\n' | ${CC:-gcc} -E -P -I"$ROOT" -x c - | tr -d ' ')
    printf '%s\n' 'dlsym@@GLIBC_2.34' "dlsym@$base" '__libc_start_main@@GLIBC_2.34' \
        "__libc_start_main@$base" "exit@@$base" 'devcheck_framework_error@@DEVCHECK_1' \
        'devcheck_framework_match@@DEVCHECK_1' 'devcheck_test_begin@@DEVCHECK_1' 'devcheck_library_root@@DEVCHECK_1' 'devcheck_test_findings@@DEVCHECK_1' \
        'devcheck_pointer_refusal@@DEVCHECK_1' 'devcheck_pointer_refused@@DEVCHECK_1' \
        'devcheck_kernel_params@@DEVCHECK_1' 'devcheck_python_cell@@DEVCHECK_1' 'devcheck_report_on_stderr@@DEVCHECK_1' 'devcheck_test_expect@@DEVCHECK_1' \
        '_ZN5torch29translate_exception_to_pythonERKNSt15__exception_ptr13exception_ptrE@@DEVCHECK_1' \
        'InitializeInjectionNvtx2@@DEVCHECK_1' '_ZN3c1027reportMemoryUsageToProfilerEPvlmmNS_6DeviceE@@DEVCHECK_1'
} | sort >"$TMPD/want"
grep -q '^cuLaunchKernel@@DEVCHECK_1$' "$TMPD/want" || fail "could not expand preload/hooks.def"
grep -q '^cublasSgemm_v2@libcublas.so.12$' "$TMPD/want" || fail "could not expand hooks_lib.def's DC_LIBOLD"
# NCCL 2.28's calls are not exported (hooks_lib.def's DC_LIBNEW): a weak
# reference against an older NCCL finds nothing, as without devcheck
! grep -q '^ncclAlltoAll@' "$TMPD/want" || fail "hooks_lib.def's DC_LIBNEW rows are expected as exports"
if ! diff -u "$TMPD/want" "$TMPD/nm" >"$TMPD/diff"; then
    sed 's/^/    /' "$TMPD/diff" >&2
    fail "exported symbols differ from the hook table (- table, + nm -D)"
fi
note "$(wc -l <"$TMPD/nm") exported symbols match preload/hooks.def"
