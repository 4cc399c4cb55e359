# NVIDIA's libraries on the simulated GPUs (sim/libs/): their exports, the
# preload list and the wrapper's use of it (libs_exports.sh).
$(BUILD)/tests/sim/libs_stub_call: sim/tests/libs_stub_call.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl
ALL   += $(BUILD)/tests/sim/libs_stub_call
TESTS += sim/tests/libs_exports.sh
