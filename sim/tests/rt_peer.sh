#!/bin/sh
# Runtime test: peer copies (cudaMemcpyPeer, cudaMemcpyDefault, async, 2D) with correct bytes; peer access enable/disable.
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_peer
expect_grep '^ok$' "$TMPD/rt_peer.out"
