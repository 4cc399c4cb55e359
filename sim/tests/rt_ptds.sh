#!/bin/sh
# Runtime test: --default-stream per-thread: __cudaLaunchKernel_ptsz and the _ptds/_ptsz entry points, two threads.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_ptds
expect_grep '^ok$' "$TMPD/rt_ptds.out"
