#!/bin/sh
# Runtime test: graphs built by hand (memset, copy, kernel, host, child
# nodes; edges; exec kernel-node updates; clones), captured across streams
# joined by events with graph memory (cudaMallocAsync / cudaFreeAsync), exec
# updates, allocation / free nodes, and the capture modes (a cudaMalloc from
# another thread invalidates a global capture; relaxed and thread-local
# modes do not; a synchronisation in the capturing thread does).
. "$(dirname "$0")/../../tests/lib.sh"
. "$ROOT/sim/tests/rt_lib.sh"
rt_run rt_graph
expect_grep '^ok$' "$TMPD/rt_graph.out"
