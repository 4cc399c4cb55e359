# preload/ build rules: libdevcheck.so, the interposer with the core and the
# CUPTI subscriber linked in.
#
#   $(BUILD)/lib/libdevcheck.so  preload/*.c + $(DCCUPTI_OBJS) + $(DCCORE_LIB), -fvisibility=hidden,
#                                version script generated from preload/hooks.def
# The same flags in every build type: the exported set never depends on it.

PRELOAD_SO    := $(BUILD)/lib/libdevcheck.so
# From the bottom: the resolver of real symbols, the hook table's real
# functions, the start-up; the hook families (the library calls: shared
# machinery, then one file per library); the door (dlsym, cuGetProcAddress).
PRELOAD_LIBS  := cublas cublaslt nccl cufft cudnn cusolver
PRELOAD_SRCS  := preload/resolve.c preload/bind.c preload/startup.c \
                 preload/hooks_mem.c preload/hooks_launch.c preload/hooks_runtime.c preload/hooks_copy.c \
                 preload/hooks_module.c preload/hooks_cupti.c preload/hooks_nvrtc.c preload/hooks_torch.c \
                 preload/hooks_lib.c $(PRELOAD_LIBS:%=preload/hooks_%.c) \
                 preload/python.c preload/nvtx.c preload/door.c
# the dlsym entry stub, per architecture (ARCH: mk/arch.mk)
PRELOAD_ASM   := preload/arch_$(ARCH).S
PRELOAD_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(PRELOAD_SRCS)) $(patsubst %.S,$(BUILD)/obj/%.o,$(PRELOAD_ASM))
PRELOAD_MAP   := $(BUILD)/obj/preload/exports.map
# nvcc checks preload/rt_proto.h against the toolkit's own declarations.
PRELOAD_PROTO := $(BUILD)/obj/preload/rt_proto_check.o

ALL += $(PRELOAD_SO)

$(BUILD)/obj/preload/%.o: preload/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/preload/%.o: preload/%.S
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(PRELOAD_MAP): preload/exports.map.in preload/hooks.def preload/hooks_lib.def preload/arch.h
	@mkdir -p $(dir $@)
	$(CC) -E -P -x c -I. preload/exports.map.in -o $@

$(PRELOAD_PROTO): preload/rt_proto_check.cu preload/rt_proto.h
	@mkdir -p $(dir $@)
	$(NVCC) -I. -c preload/rt_proto_check.cu -o $@

$(PRELOAD_SO): $(PRELOAD_OBJS) $(DCCUPTI_OBJS) $(PRELOAD_MAP) $(PRELOAD_PROTO) $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(PRELOAD_OBJS) $(DCCUPTI_OBJS) $(DCCORE_LIB) $(ALL_LDFLAGS) \
	    -Wl,--version-script=$(PRELOAD_MAP) -Wl,--no-undefined -Wl,-z,defs \
	    $(DCCORE_LDLIBS) -ldl -lpthread

-include $(patsubst %.o,%.d,$(PRELOAD_OBJS))

# devcheck's Python hook (preload/python/: its sitecustomize and the hook it
# installs), copied beside the library: the wrapper puts
# $(BUILD)/lib/python first on PYTHONPATH.
PRELOAD_PY := $(addprefix $(BUILD)/lib/python/,sitecustomize.py _devcheck_hook.py)
ALL += $(PRELOAD_PY)
$(BUILD)/lib/python/%.py: preload/python/%.py
	@mkdir -p $(dir $@)
	cp $< $@
