# Tests of the simulated NVML (sim/nvml/): a C program linked with the sim's
# libnvidia-ml.so and the toolkit's stub libcuda, comparing the two; a
# cuda-core client (Python, only without a sanitizer).
NVML_T := $(BUILD)/tests/sim
$(NVML_T)/nvml_basic: sim/tests/nvml_basic.c sim/tests/drv_check.h $(NVML_LINK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(NVML_INC) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -lnvidia-ml \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda
$(NVML_T)/nvml_basic: | $(DRV_LIB)

ALL   += $(NVML_T)/nvml_basic
TESTS += sim/tests/nvml_basic.sh
ifeq ($(SANITIZE),)
TESTS += sim/tests/nvml_py.sh
endif
