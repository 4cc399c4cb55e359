# Tests of the simulated runtime (sim/tests/rt_*): nvcc-built programs in
# $(BUILD)/tests/sim/, each run on 4 simulated GPUs by its shell script.
RT_TEST_DIR   := $(BUILD)/tests/sim
RT_TEST_PROGS := rt_devices rt_alloc rt_peer rt_launch rt_fault rt_inject rt_ptds rt_ctor rt_status rt_unimpl rt_entry rt_badinput rt_fork rt_stress \
                 rt_ipc rt_graph
RT_TEST_BINS  := $(addprefix $(RT_TEST_DIR)/,$(RT_TEST_PROGS))

$(RT_TEST_DIR)/rt_%: sim/tests/rt_%.cu sim/tests/rt_check.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@

$(RT_TEST_DIR)/rt_entry: sim/tests/rt_entry.cu sim/tests/rt_check.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@ -ldl

# driver calls too (VMM export / import)
$(RT_TEST_DIR)/rt_ipc: sim/tests/rt_ipc.cu sim/tests/rt_check.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda

$(RT_TEST_DIR)/rt_ptds: sim/tests/rt_ptds.cu sim/tests/rt_check.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) --default-stream per-thread $< -o $@

$(RT_TEST_DIR)/librt_ctor.so: sim/tests/rt_ctor_lib.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared $< -o $@ $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64 -lcudart

$(RT_TEST_DIR)/rt_ctor: sim/tests/rt_ctor.cu sim/tests/rt_check.h $(RT_TEST_DIR)/librt_ctor.so
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@ -L$(RT_TEST_DIR) -lrt_ctor -Xlinker -rpath=$(abspath $(RT_TEST_DIR))

# Preloaded by rt_traffic.sh to watch dlsym / cuGetProcAddress.
$(RT_TEST_DIR)/librt_trace.so: sim/tests/rt_trace_lib.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared $< -o $@ $(ALL_LDFLAGS) -ldl

ALL   += $(RT_TEST_BINS) $(RT_TEST_DIR)/librt_trace.so
TESTS += $(addprefix sim/tests/,rt_symbols.sh rt_devices.sh rt_alloc.sh rt_peer.sh rt_launch.sh \
                                rt_fault.sh rt_inject.sh rt_ptds.sh rt_ctor.sh rt_nodriver.sh rt_unimpl.sh \
                                rt_entry.sh rt_traffic.sh rt_badinput.sh rt_fork.sh rt_stress.sh rt_ipc.sh \
                                rt_graph.sh)

.PHONY: rt-tests
rt-tests: $(RT_LIB) $(RT_TEST_BINS)
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) sh tests/run.sh \
	    $(filter sim/tests/rt_%.sh,$(TESTS))
