# libnvidia-ml.so.1 rules (sim/nvml/): the simulated NVML.
#
#   $(SIM_BUILD)/libnvidia-ml.so.1   SONAME libnvidia-ml.so.1, exports every
#                                    function nvml.h declares (unversioned,
#                                    like NVIDIA's)
#   $(SIM_BUILD)/libnvidia-ml.so     symlink, for -lnvidia-ml against the sim
# nvml.h is not in the CUDA toolkit: mk/nvml_header.sh finds it (CUDA_HOME,
# $NVML_INCLUDE, or NVIDIA's nvidia-nvml-dev wheel fetched once with pip).
# The devices come from sim/driver/simdev.c, compiled in, so NVML and the
# sim's libcuda describe the same machine.  Every function nvml.c does not
# define gets a stub from sim/gen_stubs.py --api nvml (one line naming it,
# once; NVML_ERROR_NOT_SUPPORTED).
NVML_DIR    := sim/nvml
NVML_OBJDIR := $(BUILD)/obj/sim/nvml
NVML_INC    := $(shell PYTHON=$(PYTHON) mk/nvml_header.sh $(CUDA_HOME))
NVML_LIB    := $(SIM_BUILD)/libnvidia-ml.so.1
NVML_LINK   := $(SIM_BUILD)/libnvidia-ml.so
NVML_OBJS   := $(NVML_OBJDIR)/nvml.o $(NVML_OBJDIR)/simdev.o
NVML_CFLAGS  = $(ALL_CFLAGS) -fvisibility=hidden -I$(NVML_INC) -Isim/driver

ALL += $(NVML_LIB) $(NVML_LINK)

$(NVML_OBJDIR)/nvml.o: $(NVML_DIR)/nvml.c sim/driver/simdev.h
	@mkdir -p $(@D)
	@test -n "$(NVML_INC)" || { echo "no nvml.h (mk/nvml_header.sh)" >&2; exit 1; }
	$(CC) $(NVML_CFLAGS) -c $< -o $@
$(NVML_OBJDIR)/simdev.o: sim/driver/simdev.c sim/driver/simdev.h
	@mkdir -p $(@D)
	$(CC) $(NVML_CFLAGS) -c $< -o $@

$(NVML_OBJDIR)/stubs.c $(NVML_OBJDIR)/exports.map &: sim/gen_stubs.py $(NVML_OBJS)
	$(PYTHON) sim/gen_stubs.py --api nvml --include $(NVML_INC) --cuda-home $(CUDA_HOME) --cc $(CC) \
	    -o $(NVML_OBJDIR)/stubs.c --map $(NVML_OBJDIR)/exports.map $(NVML_OBJS)
$(NVML_OBJDIR)/stubs.o: $(NVML_OBJDIR)/stubs.c
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -I$(NVML_INC) -c $< -o $@

$(NVML_LIB): $(NVML_OBJS) $(NVML_OBJDIR)/stubs.o $(NVML_OBJDIR)/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(NVML_OBJS) $(NVML_OBJDIR)/stubs.o -Wl,-soname,libnvidia-ml.so.1 \
	    -Wl,--version-script=$(NVML_OBJDIR)/exports.map $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -lpthread
$(NVML_LINK): $(NVML_LIB)
	ln -sf libnvidia-ml.so.1 $@
