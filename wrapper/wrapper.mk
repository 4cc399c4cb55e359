# wrapper/ build rules: the devcheck command, Compute Sanitizer style.
#
#   $(BUILD)/bin/devcheck   wrapper/devcheck.c + $(DCCORE_LIB) (the option table)
DEVCHECK_BIN := $(BUILD)/bin/devcheck

ALL += $(DEVCHECK_BIN)

$(BUILD)/obj/wrapper/%.o: wrapper/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DEVCHECK_BIN): $(BUILD)/obj/wrapper/devcheck.o $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(DCCORE_LIB) $(ALL_LDFLAGS) $(DCCORE_LDLIBS) -ldl

-include $(BUILD)/obj/wrapper/devcheck.d
