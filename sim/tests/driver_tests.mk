# Tests of the simulated driver (sim/driver/): driver-API programs linked with
# -lcuda against the toolkit's stub libcuda, run on the sim through a shell
# wrapper (sim/tests/drv_*.sh) that sets LD_LIBRARY_PATH=$(SIM_BUILD) and the
# SIMCUDA_* environment.  Test kernels are compiled by nvcc to a cubin and a
# fatbin; the tests export their host twins (-rdynamic).
DRV_T        := $(BUILD)/tests/sim
DRV_T_NAMES  := drv_basic drv_memory drv_launch drv_fail drv_threads drv_peer drv_robust drv_graph drv_version drv_visible
DRV_T_BINS   := $(addprefix $(DRV_T)/,$(DRV_T_NAMES))
DRV_T_IMAGES := $(DRV_T)/drv_kernels.cubin $(DRV_T)/drv_kernels.fatbin
DRV_T_NVCC   := $(NVCC) -Wno-deprecated-gpu-targets

$(DRV_T)/drv_kernels.cubin: sim/tests/drv_kernels.cu
	@mkdir -p $(@D)
	$(DRV_T_NVCC) -cubin -o $@ $<
$(DRV_T)/drv_kernels.fatbin: sim/tests/drv_kernels.cu
	@mkdir -p $(@D)
	$(DRV_T_NVCC) -fatbin -o $@ $<

$(DRV_T_BINS): $(DRV_T)/%: sim/tests/%.c sim/tests/drv_check.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DKDIR='"$(abspath $(DRV_T))"' -o $@ $< -rdynamic $(ALL_LDFLAGS) \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread -ldl

$(DRV_T)/drv_launch $(DRV_T)/drv_robust $(DRV_T)/drv_graph: $(DRV_T_IMAGES)
# the programs run on the sim's libcuda.so.1
$(DRV_T_BINS): | $(DRV_LIB)

ALL   += $(DRV_T_BINS) $(DRV_T_IMAGES)
TESTS += $(addprefix sim/tests/,$(addsuffix .sh,$(DRV_T_NAMES)))

# bound at load time, before the sim unexports what SIMCUDA_DRIVER_VERSION /
# SIMCUDA_HIDE remove: the calls reach the sim, which refuses them
$(DRV_T)/drv_version: ALL_LDFLAGS += -Wl,-z,now
