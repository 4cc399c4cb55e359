# libcudart.so.13 rules (sim/runtime/): the simulated CUDA runtime.
#
#   $(SIM_BUILD)/libcudart.so.13   SONAME libcudart.so.13, every exported
#                                  symbol versioned libcudart.so.13 like NVIDIA's
# Exports are exactly the functions defined with RT_API (default visibility;
# everything else is built -fvisibility=hidden); the version script listing
# them is generated from the objects.  rt_errors.h (error names and strings)
# is generated from the toolkit's driver_types.h.

RT_DIR     := sim/runtime
RT_OBJDIR  := $(BUILD)/obj/sim/runtime
RT_SRCS    := $(wildcard $(RT_DIR)/*.c)
RT_OBJS    := $(patsubst $(RT_DIR)/%.c,$(RT_OBJDIR)/%.o,$(RT_SRCS))
RT_LIB     := $(SIM_BUILD)/libcudart.so.13
RT_MAP     := $(RT_OBJDIR)/libcudart.map
RT_ERRORS  := $(RT_OBJDIR)/rt_errors.h
RT_CHECK   := $(RT_OBJDIR)/rt_protocheck.o

ALL += $(RT_LIB)

$(RT_ERRORS): $(RT_DIR)/gen_errors.py $(CUDA_INC)/driver_types.h
	@mkdir -p $(@D)
	$(PYTHON) $< $(CUDA_INC) $@

$(RT_OBJDIR)/%.o: $(RT_DIR)/%.c $(RT_DIR)/rt.h $(RT_DIR)/drv.def $(RT_ERRORS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -I$(RT_OBJDIR) -c $< -o $@

# Prototype check of the __cuda* internals against nvcc's own declarations.
$(RT_CHECK): $(RT_DIR)/rt_protocheck.cu $(RT_DIR)/rt.h $(RT_DIR)/drv.def
	@mkdir -p $(@D)
	$(NVCC) -c -Xcompiler -Wall,-Wextra,-Werror -I$(RT_DIR) $< -o $@

$(RT_MAP): $(RT_OBJS)
	@mkdir -p $(@D)
	{ echo 'libcudart.so.13 {'; echo '  global:'; \
	  readelf -sW $(RT_OBJS) | awk '$$4 == "FUNC" && $$5 == "GLOBAL" && $$6 == "DEFAULT" && $$7 != "UND" { print "    " $$8 ";" }' | sort -u; \
	  echo '  local: *;'; echo '};'; } > $@.tmp && mv $@.tmp $@

$(RT_LIB): $(RT_OBJS) $(RT_MAP) $(RT_CHECK)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(RT_OBJS) -Wl,-soname,libcudart.so.13 -Wl,--version-script=$(RT_MAP) \
	    $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -ldl -lpthread
