# preload/ build rules: libdevcheck.so (the interposer) and the devcheck wrapper.
#
#   $(BUILD)/lib/libdevcheck.so  preload/*.c + cupti/*.c + $(DCCORE_LIB), -fvisibility=hidden,
#                                version script generated from preload/hooks.def
#   $(BUILD)/bin/devcheck        wrapper/devcheck.c + $(DCCORE_LIB) (the option table)
# The same flags in every build type: the exported set never depends on it.

PRELOAD_SO    := $(BUILD)/lib/libdevcheck.so
DEVCHECK_BIN  := $(BUILD)/bin/devcheck
PRELOAD_SRCS  := preload/interpose.c core/memory.c core/launch.c cupti/cupti.c
PRELOAD_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(PRELOAD_SRCS))
PRELOAD_MAP   := $(BUILD)/obj/preload/exports.map
# nvcc checks preload/rt_proto.h against the toolkit's own declarations.
PRELOAD_PROTO := $(BUILD)/obj/preload/rt_proto_check.o
PRELOAD_CFLAGS = $(ALL_CFLAGS) -fvisibility=hidden -I.

ALL += $(PRELOAD_SO) $(DEVCHECK_BIN)

$(BUILD)/obj/preload/%.o: preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/core/%.o: core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/cupti/%.o: cupti/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@

$(PRELOAD_MAP): preload/exports.map.in preload/hooks.def
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c -I. preload/exports.map.in -o $@

$(PRELOAD_PROTO): preload/rt_proto_check.cu preload/rt_proto.h
	@mkdir -p $(dir $@)
	$(NVCC) -I. -c preload/rt_proto_check.cu -o $@

$(PRELOAD_SO): $(PRELOAD_OBJS) $(PRELOAD_MAP) $(PRELOAD_PROTO) $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(PRELOAD_OBJS) $(DCCORE_LIB) $(ALL_LDFLAGS) \
	    -Wl,--version-script=$(PRELOAD_MAP) -Wl,--no-undefined -Wl,-z,defs \
	    $(DCCORE_LDLIBS) -ldl -lpthread

$(BUILD)/obj/wrapper/%.o: wrapper/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -MMD -MP -c $< -o $@

$(DEVCHECK_BIN): $(BUILD)/obj/wrapper/devcheck.o $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(DCCORE_LIB) $(ALL_LDFLAGS) $(DCCORE_LDLIBS) -ldl

-include $(patsubst %.o,%.d,$(PRELOAD_OBJS)) $(BUILD)/obj/wrapper/devcheck.d
