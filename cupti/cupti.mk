# cupti/ build rules: the CUPTI subscriber, linked into libdevcheck.so as
# objects (not an archive: it registers itself with the core, and nothing
# references it by name).
DCCUPTI_SRCS := cupti/subscribe.c cupti/translate.c
DCCUPTI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DCCUPTI_SRCS))

$(BUILD)/obj/cupti/%.o: cupti/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

-include $(patsubst %.o,%.d,$(DCCUPTI_OBJS))
