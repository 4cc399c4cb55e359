# core/ build rules: the core archive (registry, kernel metadata, launch
# description and check, the modes, options, devcheck's own driver calls).
#
# DCCORE_LIB    what a program or shared object linking the core links: the
#               core archive, then report/'s (the core feeds the report), then
#               common/'s (everyone's ground floor).
#               Position-independent, -fvisibility=hidden.
# DCCORE_LDLIBS what it needs besides.
DCCORE_ARCHIVE := $(BUILD)/obj/libdccore.a
DCCORE_LIB     := $(DCCORE_ARCHIVE) $(DCREPORT_LIB) $(DCCOMMON_LIB)
# libunwind and libdw are loaded with dlopen(RTLD_LOCAL) by report/stack.c,
# never linked: nothing of theirs may come ahead of the program's libraries.
DCCORE_LDLIBS  := -l:libiberty.a -lpthread -ldl
# The rooms, from the ground up (README.md, Layout): each may use the ones
# before it, never one after it (tests/unit/layering.sh).
DCCORE_BASE    := core/base/cudacall.c core/base/options.c core/base/epoch.c
DCCORE_OWNER   := core/owner/registry.c core/owner/ptrinfo.c core/owner/blocks.c core/owner/memory.c core/owner/transfers.c
DCCORE_KERNEL  := core/kernel/kernels.c core/kernel/evidence.c core/kernel/images.c core/kernel/cubin.c \
                  core/kernel/hostdwarf.c core/kernel/mangle.c core/kernel/mangle_type.c core/kernel/source.c core/kernel/origin.c core/kernel/pnames.c \
                  core/kernel/select.c
DCCORE_VERDICT := core/verdict/launch.c core/verdict/check.c core/verdict/filter.c core/verdict/migrate.c \
                  core/verdict/capture.c core/verdict/record.c core/verdict/framework.c core/verdict/libcall.c \
                  core/verdict/wmemo.c core/verdict/lmemo.c core/verdict/view.c
DCCORE_SRCS    := $(DCCORE_BASE) $(DCCORE_OWNER) $(DCCORE_KERNEL) $(DCCORE_VERDICT) \
                  core/lifecycle.c core/contexts.c core/frontends.c
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
