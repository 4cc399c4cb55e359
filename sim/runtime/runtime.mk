# libcudart.so.13 rules (sim/runtime/): the simulated CUDA runtime.
#
#   $(SIM_BUILD)/libcudart.so.13   SONAME libcudart.so.13, every exported
#                                  symbol versioned libcudart.so.13 like NVIDIA's
# Implemented entry points are the functions defined with RT_API (default
# visibility; everything else is built -fvisibility=hidden).  Every other name
# NVIDIA's libcudart.so.13 exports gets a stub from sim/gen_stubs.py (prints
# one line naming it, once, and returns cudaErrorNotSupported); gen_stubs.py
# also writes the version script: NVIDIA's export list under the node
# libcudart.so.13.  rt_errors.h (error names and strings) is generated from
# the toolkit's driver_types.h.
# CUPTI runtime-domain callbacks: sim/cupti/gen_callbacks.py --api runtime
# writes cbwrap.c (the exported entry points with a callback id: params
# struct, ENTER, simimpl_<name>, EXIT) and cbwrap.syms; the objects under
# impl/ are the compiled sources with those functions (and every internal
# call) renamed simimpl_<name> by objcopy --redefine-syms.

RT_DIR     := sim/runtime
RT_OBJDIR  := $(BUILD)/obj/sim/runtime
RT_SRCS    := $(wildcard $(RT_DIR)/*.c)
RT_OBJS    := $(patsubst $(RT_DIR)/%.c,$(RT_OBJDIR)/%.o,$(RT_SRCS))
RT_LIB     := $(SIM_BUILD)/libcudart.so.13
RT_MAP     := $(RT_OBJDIR)/exports.map
RT_STUBS   := $(RT_OBJDIR)/stubs.c
RT_ERRORS  := $(RT_OBJDIR)/rt_errors.h
RT_CHECK   := $(RT_OBJDIR)/rt_protocheck.o
RT_HDRS    := $(RT_DIR)/rt.h $(RT_DIR)/rt_cb.h $(RT_DIR)/drv.def sim/cupti/simcb.h
RT_CFLAGS   = $(ALL_CFLAGS) -fvisibility=hidden -I$(RT_DIR) -I$(RT_OBJDIR) -Isim/cupti
RT_CB_C    := $(RT_OBJDIR)/cbwrap.c
RT_CB_SYMS := $(RT_OBJDIR)/cbwrap.syms
RT_IMPL_OBJS := $(patsubst $(RT_OBJDIR)/%.o,$(RT_OBJDIR)/impl/%.o,$(RT_OBJS))

ALL += $(RT_LIB)

$(RT_ERRORS): $(RT_DIR)/gen_errors.py $(CUDA_INC)/driver_types.h
	@mkdir -p $(@D)
	$(PYTHON) $< $(CUDA_INC) $@

$(RT_OBJDIR)/%.o: $(RT_DIR)/%.c $(RT_HDRS) $(RT_ERRORS)
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(RT_CB_C) $(RT_CB_SYMS) &: sim/cupti/gen_callbacks.py sim/gen_stubs.py $(RT_OBJS)
	$(PYTHON) sim/cupti/gen_callbacks.py --api runtime --cuda-home $(CUDA_HOME) --cc $(CC) \
	    --include $(abspath $(RT_DIR)/rt.h) -o $(RT_CB_C) --syms $(RT_CB_SYMS) $(RT_OBJS)

$(RT_OBJDIR)/cbwrap.o: $(RT_CB_C) $(RT_HDRS)
	$(CC) $(RT_CFLAGS) -c $< -o $@

$(RT_OBJDIR)/impl/%.o: $(RT_OBJDIR)/%.o $(RT_CB_SYMS)
	@mkdir -p $(@D)
	$(OBJCOPY) --redefine-syms=$(RT_CB_SYMS) $< $@

# Prototype check of the __cuda* internals against nvcc's own declarations.
$(RT_CHECK): $(RT_DIR)/rt_protocheck.cu $(RT_DIR)/rt.h $(RT_DIR)/drv.def
	@mkdir -p $(@D)
	$(NVCC) -c -Xcompiler -Wall,-Wextra,-Werror -I$(RT_DIR) $< -o $@

$(RT_STUBS): sim/gen_stubs.py $(RT_OBJS)
	@mkdir -p $(@D)
	$(PYTHON) sim/gen_stubs.py --api runtime --real $(CUDA_HOME)/lib64/libcudart.so.13 \
	    --version-node libcudart.so.13 --cuda-home $(CUDA_HOME) --cc $(CC) \
	    -o $(RT_STUBS) --map $(RT_MAP) $(RT_OBJS)
$(RT_MAP): $(RT_STUBS)
	@test -f $@ || { rm -f $(RT_STUBS); echo "$@ missing: rerun make" >&2; exit 1; }

$(RT_OBJDIR)/stubs.o: $(RT_STUBS)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(RT_LIB): $(RT_IMPL_OBJS) $(RT_OBJDIR)/cbwrap.o $(RT_OBJDIR)/stubs.o $(RT_MAP) $(RT_CHECK)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(RT_IMPL_OBJS) $(RT_OBJDIR)/cbwrap.o $(RT_OBJDIR)/stubs.o -Wl,-soname,libcudart.so.13 -Wl,--version-script=$(RT_MAP) \
	    $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -ldl -lpthread
