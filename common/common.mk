# common/ build rules: the ground floor every folder of the tool may use
# (fork-safe locks, lazy library loading, formatting, JSON).  It uses
# nothing of the tool.
#
# DCCOMMON_LIB  static archive of common/: position-independent,
#               -fvisibility=hidden
DCCOMMON_LIB  := $(BUILD)/obj/libdccommon.a
DCCOMMON_SRCS := common/format.c common/json.c
DCCOMMON_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DCCOMMON_SRCS))

ALL += $(DCCOMMON_LIB)

$(BUILD)/obj/common/%.o: common/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DCCOMMON_LIB): $(DCCOMMON_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(patsubst %.o,%.d,$(DCCOMMON_OBJS))
