# devcheck replay (replay/): recorded launches judged by the core's check.
# tests/replay/traces.sh: the H200 recordings (tests/traces/h200-2026-11);
# C only (the wrapper), so under every sanitizer; a few seconds.
TESTS += tests/replay/traces.sh
