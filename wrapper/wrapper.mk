# wrapper/ build rules: the devcheck command, Compute Sanitizer style.
#
#   $(BUILD)/bin/devcheck   wrapper/devcheck.c + $(DCREPLAY_LIB) (devcheck replay) + $(DCCORE_LIB)
#                           (the option table, the check)
DEVCHECK_BIN := $(BUILD)/bin/devcheck

ALL += $(DEVCHECK_BIN)

$(BUILD)/obj/wrapper/%.o: wrapper/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DEVCHECK_BIN): $(BUILD)/obj/wrapper/devcheck.o $(DCREPLAY_LIB) $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(DCREPLAY_LIB) $(DCCORE_LIB) $(ALL_LDFLAGS) $(DCCORE_LDLIBS) $(DCREPLAY_LDLIBS) -ldl

-include $(BUILD)/obj/wrapper/devcheck.d
