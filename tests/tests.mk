# tests/ build rules: each part's fragment appends test executables to TESTS.
include tests/unit.mk
include tests/preload.mk
-include tests/e2e.mk
include tests/outputs.mk
include tests/cupti.mk
include tests/clients.mk
include tests/install.mk
include tests/corpus/corpus.mk
include tests/bench.mk
include tests/replay.mk
include tests/libapi/libapi.mk
include tests/fuzz/fuzz.mk
