# Unit tests of the devcheck core (registry/, report/, preload/options.c):
# C programs linked with $(DCCORE_LIB), and shell drivers that check the JSON
# output against report/finding.schema.json with a stdlib-only validator.
UNIT_DIR   := $(BUILD)/tests/unit
UNIT_PROGS := test_registry test_options test_check
UNIT_BINS  := $(addprefix $(UNIT_DIR)/,$(UNIT_PROGS))

$(UNIT_DIR)/%: tests/unit/%.c tests/unit/unit.h $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS) $(UNIT_EXTRA_LIBS)

# test_check stands for a C++ program: the demangler is the program's own.
$(UNIT_DIR)/test_check: UNIT_EXTRA_LIBS := -lstdc++

ALL   += $(UNIT_BINS)
TESTS += $(UNIT_DIR)/test_registry $(UNIT_DIR)/test_options tests/unit/check_reports.sh

.PHONY: unit
unit: $(UNIT_BINS)
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) sh tests/run.sh \
	    $(UNIT_DIR)/test_registry $(UNIT_DIR)/test_options tests/unit/check_reports.sh
