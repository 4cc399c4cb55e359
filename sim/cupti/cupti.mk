# libcupti.so.13 rules (sim/cupti/): the sim's CUPTI (callback API).
#
#   $(SIM_BUILD)/libcupti.so.13   SONAME libcupti.so.13, every exported symbol
#                                 versioned libcupti.so.13 like NVIDIA's
#   $(SIM_BUILD)/libcupti.so      symlink, for -lcupti against the sim
# cupti.c implements the callback API over the sim driver's private export
# table (simcb.h); every other name NVIDIA's libcupti.so.13 exports gets a
# stub from sim/gen_stubs.py --api cupti (CUPTI_ERROR_NOT_SUPPORTED), which
# also writes the version script.  results_table.h (cuptiGetResultString) is
# generated from cupti_result.h by gen_callbacks.py, names_table.h
# (cuptiGetCallbackName) from the driver and runtime cbid headers.

CUPTI_DIR    := sim/cupti
CUPTI_OBJDIR := $(BUILD)/obj/sim/cupti
CUPTI_OBJS   := $(CUPTI_OBJDIR)/cupti.o
CUPTI_REAL   := $(CUDA_HOME)/lib64/libcupti.so.13
CUPTI_LIB    := $(SIM_BUILD)/libcupti.so.13
CUPTI_LINK   := $(SIM_BUILD)/libcupti.so

ALL += $(CUPTI_LIB) $(CUPTI_LINK)

$(CUPTI_OBJDIR)/results_table.h: $(CUPTI_DIR)/gen_callbacks.py $(CUDA_INC)/cupti_result.h
	@mkdir -p $(@D)
	$(PYTHON) $< results $(CUDA_INC)/cupti_result.h > $@.tmp && mv $@.tmp $@

$(CUPTI_OBJDIR)/names_table.h: $(CUPTI_DIR)/gen_callbacks.py $(CUDA_INC)/cupti_driver_cbid.h $(CUDA_INC)/cupti_runtime_cbid.h
	@mkdir -p $(@D)
	$(PYTHON) $< names $(CUDA_INC)/cupti_driver_cbid.h $(CUDA_INC)/cupti_runtime_cbid.h > $@.tmp && mv $@.tmp $@

# CUPTI_LIB: cupti.h then gives its declarations default visibility
$(CUPTI_OBJDIR)/cupti.o: $(CUPTI_DIR)/cupti.c $(CUPTI_DIR)/simcb.h $(CUPTI_OBJDIR)/results_table.h $(CUPTI_OBJDIR)/names_table.h
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -DCUPTI_LIB -I$(CUPTI_DIR) -I$(CUPTI_OBJDIR) -c $< -o $@

$(CUPTI_OBJDIR)/stubs.c $(CUPTI_OBJDIR)/exports.map &: sim/gen_stubs.py $(CUPTI_OBJS) $(CUPTI_REAL)
	$(PYTHON) sim/gen_stubs.py --api cupti --real $(CUPTI_REAL) --version-node libcupti.so.13 \
	    --cuda-home $(CUDA_HOME) --cc $(CC) -o $(CUPTI_OBJDIR)/stubs.c --map $(CUPTI_OBJDIR)/exports.map $(CUPTI_OBJS)

$(CUPTI_OBJDIR)/stubs.o: $(CUPTI_OBJDIR)/stubs.c
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(CUPTI_LIB): $(CUPTI_OBJS) $(CUPTI_OBJDIR)/stubs.o $(CUPTI_OBJDIR)/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(CUPTI_OBJS) $(CUPTI_OBJDIR)/stubs.o -Wl,-soname,libcupti.so.13 \
	    -Wl,--version-script=$(CUPTI_OBJDIR)/exports.map $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -ldl -lpthread

$(CUPTI_LINK): $(CUPTI_LIB)
	ln -sf libcupti.so.13 $@
