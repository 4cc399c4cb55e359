# core/ build rules: the core archive (registry, kernel metadata, launch
# description and check, the modes, options, devcheck's own driver calls).
#
# DCCORE_LIB    what a program or shared object linking the core links: the
#               core archive, then report/'s (the core feeds the report).
#               Position-independent, -fvisibility=hidden.
# DCCORE_LDLIBS what it needs besides.
DCCORE_ARCHIVE := $(BUILD)/obj/libdccore.a
DCCORE_LIB     := $(DCCORE_ARCHIVE) $(DCREPORT_LIB)
# libunwind and libdw are loaded with dlopen(RTLD_LOCAL) by report/stack.c,
# never linked: nothing of theirs may come ahead of the program's libraries.
DCCORE_LDLIBS  := -l:libiberty.a -lpthread -ldl
DCCORE_SRCS    := core/registry.c core/check.c core/filter.c core/options.c core/driver.c core/kernels.c core/launch.c \
                  core/migrate.c core/memory.c core/contexts.c core/capture.c core/core.c core/frontends.c core/mangle.c \
                  core/image.c core/images.c core/source.c core/evidence.c core/hostdwarf.c core/ptrinfo.c core/transfers.c \
                  core/framework.c core/epoch.c core/origin.c core/record.c core/blocks.c core/libapi.c
DCCORE_OBJS    := $(patsubst %.c,$(BUILD)/obj/%.o,$(DCCORE_SRCS))

ALL += $(DCCORE_ARCHIVE)

$(BUILD)/obj/core/%.o: core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DCCORE_ARCHIVE): $(DCCORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(patsubst %.o,%.d,$(DCCORE_OBJS))
