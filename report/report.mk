# report/ build rules: the devcheck core archive.
#
# DCCORE_LIB    static archive of core/ (registry, check, options) and report/:
#               position-independent, -fvisibility=hidden (nothing in it is
#               exported from the shared object it is linked into).
# DCCORE_LDLIBS what a program or shared object linking $(DCCORE_LIB) needs.
# DCCORE_CFLAGS the flags the core is compiled with (include root: the repo).
DCCORE_LIB    := $(BUILD)/obj/libdccore.a
DCCORE_LDLIBS := -lunwind -ldw -lelf -lpthread -ldl
DCCORE_CFLAGS  = $(ALL_CFLAGS) -fvisibility=hidden -I.
DCCORE_SRCS   += report/report.c report/stack.c
DCCORE_OBJS    = $(patsubst %.c,$(BUILD)/obj/dccore/%.o,$(DCCORE_SRCS))

ALL += $(DCCORE_LIB)

$(BUILD)/obj/dccore/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DCCORE_LIB): $(DCCORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(patsubst %.o,%.d,$(DCCORE_OBJS))
