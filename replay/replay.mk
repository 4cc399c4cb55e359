# replay/ build rules: the third front end (recorded launches judged by the
# core's check), linked into the devcheck command (`devcheck replay`).
#
# DCREPLAY_LIB     its archive: position-independent, -fvisibility=hidden
# DCREPLAY_LDLIBS  what it needs besides the core: zlib (gzip'd traces)
DCREPLAY_LIB    := $(BUILD)/obj/libdcreplay.a
DCREPLAY_LDLIBS := -lz
DCREPLAY_SRCS   := replay/replay.c replay/origins.c
DCREPLAY_OBJS   := $(patsubst %.c,$(BUILD)/obj/%.o,$(DCREPLAY_SRCS))

ALL += $(DCREPLAY_LIB)

$(BUILD)/obj/replay/%.o: replay/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DCREPLAY_LIB): $(DCREPLAY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(patsubst %.o,%.d,$(DCREPLAY_OBJS))
