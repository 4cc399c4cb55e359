# Tests of the sim's fault model, twins, globals and export tables
# (sim/driver/operands.c, guard.c, twins.c, globals.c, exporttab.c).
FID_T := $(BUILD)/tests/sim

$(FID_T)/libdrv_guard_twin.so: sim/tests/drv_guard_twin.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS)
$(FID_T)/drv_guard: sim/tests/drv_guard.c sim/tests/drv_check.h $(DRV_T_IMAGES) $(FID_T)/libdrv_guard_twin.so | $(DRV_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DKDIR='"$(abspath $(FID_T))"' -o $@ $< -rdynamic $(ALL_LDFLAGS) \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread -ldl

ALL   += $(FID_T)/drv_guard $(FID_T)/libdrv_guard_twin.so
TESTS += sim/tests/drv_guard.sh

# the image reader's pointer evidence and variables
EV_T := $(BUILD)/tests/image
EV_FILES := $(addprefix $(EV_T)/,evidence.ptx evidence.cubin evidence.fatbin evidence_ptr.cubin evidence_ptr.ptx)
$(EV_T)/evidence.ptx: sim/tests/image_evidence.cu
	@mkdir -p $(@D)
	$(NVCC) -Wno-deprecated-gpu-targets -ptx -o $@ $<
$(EV_T)/evidence.cubin: sim/tests/image_evidence.cu
	@mkdir -p $(@D)
	$(NVCC) -Wno-deprecated-gpu-targets -cubin -o $@ $<
$(EV_T)/evidence.fatbin: sim/tests/image_evidence.cu
	@mkdir -p $(@D)
	$(NVCC) -Wno-deprecated-gpu-targets -fatbin -o $@ $<
$(EV_T)/evidence_ptr.ptx: sim/tests/image_evidence.ptx
	@mkdir -p $(@D)
	cp $< $@
$(EV_T)/evidence_ptr.cubin: sim/tests/image_evidence.ptx
	@mkdir -p $(@D)
	$(CUDA_HOME)/bin/ptxas -arch=sm_80 -o $@ $<
$(BUILD)/tests/image_evidence: sim/tests/image_evidence.c $(IMAGE_DEPS) $(EV_FILES)
	$(CC) $(IMAGE_TEST_CFLAGS) -o $@ $< $(SIM_IMAGE_SRCS) $(ALL_LDFLAGS) $(SIM_IMAGE_LIBS)

ALL   += $(BUILD)/tests/image_evidence
TESTS += $(BUILD)/tests/image_evidence

# operands.c on its own: which parameters a launch dereferences
$(BUILD)/tests/operands_unit: sim/tests/operands_unit.c sim/driver/operands.c $(DRV_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Isim/driver -Isim/cupti -o $@ $< sim/driver/operands.c $(ALL_LDFLAGS) -lstdc++
ALL   += $(BUILD)/tests/operands_unit
TESTS += $(BUILD)/tests/operands_unit

# __device__ variables through the runtime (built by runtime_tests.mk's rt_% rule)
ALL   += $(RT_TEST_DIR)/rt_globals
TESTS += sim/tests/rt_globals.sh

$(FID_T)/drv_globals: sim/tests/drv_globals.c sim/tests/drv_check.h $(EV_FILES) | $(DRV_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DIDIR='"$(abspath $(EV_T))"' -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda
ALL   += $(FID_T)/drv_globals
TESTS += sim/tests/drv_globals.sh

# NVIDIA's private export tables
$(FID_T)/libdrv_export.so: sim/tests/drv_export_lib.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda
$(FID_T)/drv_export: sim/tests/drv_export.c sim/tests/drv_check.h $(FID_T)/libdrv_export.so | $(DRV_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DKDIR='"$(abspath $(FID_T))"' -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl
ALL   += $(FID_T)/drv_export $(FID_T)/libdrv_export.so
TESTS += sim/tests/drv_export.sh
