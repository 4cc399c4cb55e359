#!/bin/sh
# The wrapper sets nothing that changes how a program allocates (issue 27):
# the child's environment has no PYTORCH_NO_CUDA_MEMORY_CACHING,
# XLA_PYTHON_CLIENT_ALLOCATOR nor TF_GPU_ALLOCATOR; --framework-caching is
# accepted, says in one stderr line that it is ignored, and changes nothing;
# a value the user set is passed on as it was.
: "${ROOT:=$(cd "$(dirname "$0")/../.." && pwd)}"
. "$ROOT/tests/e2e/common.sh"
need "$DEVCHECK_BIN"
vars='PYTORCH_NO_CUDA_MEMORY_CACHING|XLA_PYTHON_CLIENT_ALLOCATOR|TF_GPU_ALLOCATOR'
clean() { env -u PYTORCH_NO_CUDA_MEMORY_CACHING -u XLA_PYTHON_CLIENT_ALLOCATOR -u TF_GPU_ALLOCATOR "$@"; }
run "$TMPD/plain" clean "$DEVCHECK_BIN" --sim 2 -- env
expect_eq "wrapper: status" 0 "$(rc_of "$TMPD/plain")"
expect_grep '^LD_PRELOAD=' "$TMPD/plain.out"
expect_no_grep "^($vars)=" "$TMPD/plain.out"
expect_no_grep 'framework-caching' "$TMPD/plain.err"
run "$TMPD/flag" clean "$DEVCHECK_BIN" --sim 2 --framework-caching -- env
expect_eq "--framework-caching: status" 0 "$(rc_of "$TMPD/flag")"
expect_no_grep "^($vars)=" "$TMPD/flag.out"
expect_eq "--framework-caching: one line" 1 "$(grep -c 'framework-caching is ignored: caching allocators are always kept' "$TMPD/flag.err")"
run "$TMPD/user" env PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$DEVCHECK_BIN" --sim 2 -- env
expect_grep '^PYTORCH_NO_CUDA_MEMORY_CACHING=1$' "$TMPD/user.out"
exit 0
