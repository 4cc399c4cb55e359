# Unit tests of the devcheck core (core/: registry, check, options; report/):
# C programs linked with $(DCCORE_LIB), and shell drivers that check the JSON
# output against report/finding.schema.json with a stdlib-only validator.
# layering.sh checks the dependency graph between the folders.
UNIT_DIR   := $(BUILD)/tests/unit
UNIT_PROGS := test_registry test_options test_check test_ownframes test_arch
UNIT_BINS  := $(addprefix $(UNIT_DIR)/,$(UNIT_PROGS))

$(UNIT_DIR)/%: tests/unit/%.c tests/unit/unit.h $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS) $(UNIT_EXTRA_LIBS)

# The core inside a shared object, as in libdevcheck.so: its own frames must
# not show in reports (test_ownframes).
$(UNIT_DIR)/libownframes.so: tests/unit/ownframes_lib.c $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -shared $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS)

$(UNIT_DIR)/test_ownframes: tests/unit/test_ownframes.c tests/unit/unit.h $(UNIT_DIR)/libownframes.so
	$(CC) $(DCCORE_CFLAGS) $< -o $@ $(ALL_LDFLAGS) -L$(UNIT_DIR) -lownframes -Wl,-rpath,'$$ORIGIN'

# test_check stands for a C++ program: the demangler is the program's own.
$(UNIT_DIR)/test_check: UNIT_EXTRA_LIBS := -lstdc++

ALL   += $(UNIT_BINS)
UNIT_TESTS := $(UNIT_DIR)/test_registry $(UNIT_DIR)/test_options $(UNIT_DIR)/test_arch tests/unit/check_reports.sh \
              tests/unit/ownframes.sh tests/unit/layering.sh
TESTS += $(UNIT_TESTS)

.PHONY: unit
unit: $(UNIT_BINS)
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) sh tests/run.sh $(UNIT_TESTS)
