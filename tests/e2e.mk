# End-to-end tests: the samples on the sim under devcheck (tests/e2e/).
# Shell scripts; they need the samples, the sim, libdevcheck.so and the
# wrapper, all in ALL.  Expected findings: tests/e2e/expected/NAME.txt.
TESTS += tests/e2e/samples_sim.sh tests/e2e/buggy_preload.sh tests/e2e/buggy_wrapper.sh \
         tests/e2e/fixed_clean.sh tests/e2e/peer_pipeline.sh tests/e2e/transparent.sh \
         tests/e2e/alloc_sites.sh
