# NVIDIA's libraries on the simulated GPUs (sim/libs/): their exports, the
# preload list and the wrapper's use of it (libs_exports.sh).
$(BUILD)/tests/sim/libs_stub_call: sim/tests/libs_stub_call.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl
ALL   += $(BUILD)/tests/sim/libs_stub_call
TESTS += sim/tests/libs_exports.sh
# imports.tsv still lists what the client virtualenv's PyTorch imports
# (Python: no sanitizer, no cross build)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += sim/tests/imports_fresh.sh
endif

# the sim's cuBLAS / cuBLASLt compute and fault (blas_sim.sh)
$(BUILD)/tests/sim/blas_sim: sim/tests/blas_sim.c $(SB_BLAS_LIB) $(SB_LT_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libcublas.so.13 -l:libcublasLt.so.13 \
	    -Wl,-rpath-link=$(SIM_BUILD) -L$(CUDA_HOME)/lib64 -lcudart -lm
ALL   += $(BUILD)/tests/sim/blas_sim
TESTS += sim/tests/blas_sim.sh

# the sim's cuBLASLt descriptors against NVIDIA's, on the CPU (lt_descriptors.sh)
$(BUILD)/tests/sim/lt_probe: sim/tests/lt_probe.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl
ALL   += $(BUILD)/tests/sim/lt_probe
TESTS += sim/tests/lt_descriptors.sh

# the sim's cuFFT computes and faults (fft_sim.sh)
$(BUILD)/tests/sim/fft_sim: sim/tests/fft_sim.c sim/tests/ck.h $(SF_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libcufft.so.12 -Wl,-rpath-link=$(SIM_BUILD) \
	    -L$(CUDA_HOME)/lib64 -lcudart -lm
ALL   += $(BUILD)/tests/sim/fft_sim
TESTS += sim/tests/fft_sim.sh
# PyTorch's FFTs on the sim's cuFFT (the client virtualenv: no sanitizer)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += sim/tests/fft_torch.sh
endif
