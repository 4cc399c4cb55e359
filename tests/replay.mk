# devcheck replay (replay/): recorded launches judged by the core's check.
# tests/replay/traces.sh: the H200 recordings (tests/traces/h200-2026-11);
# C only (the wrapper), so under every sanitizer; a few seconds.
TESTS += tests/replay/traces.sh
# tests/replay/record_sim.sh: --record-launches on the sim, then the replay:
# the live run's findings for every buggy e2e sample (needs the samples).
TESTS += tests/replay/record_sim.sh
