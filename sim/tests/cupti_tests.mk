# Tests of the sim's CUPTI (sim/cupti/ and the callbacks of libcuda /
# libcudart): subscriber programs built against the toolkit's cupti.h and
# linked with the sim's libcupti.so, run on the sim (sim/tests/cupti_*.sh).
CUPTI_T_C    := cupti_drv cupti_held
CUPTI_T_BINS := $(addprefix $(DRV_T)/,$(CUPTI_T_C))

$(CUPTI_T_BINS): $(DRV_T)/%: sim/tests/%.c sim/tests/drv_check.h $(CUPTI_LINK) | $(DRV_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DKDIR='"$(abspath $(DRV_T))"' -o $@ $< -rdynamic $(ALL_LDFLAGS) \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -L$(SIM_BUILD) -lcupti -lpthread -ldl
$(DRV_T)/cupti_drv: $(DRV_T_IMAGES)

# runtime domain: nvcc -cudart shared, with the sim's libcupti
$(DRV_T)/cupti_rt: sim/tests/cupti_rt.cu sim/tests/rt_check.h $(CUPTI_LINK)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) $< -o $@ -L$(CUDA_HOME)/lib64/stubs -lcuda -L$(SIM_BUILD) -lcupti
CUPTI_T_BINS += $(DRV_T)/cupti_rt

# libcupti alone: linked with the sim's libcupti only
$(DRV_T)/cupti_nodrv: sim/tests/cupti_nodrv.c $(CUPTI_LINK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -lcupti
CUPTI_T_BINS += $(DRV_T)/cupti_nodrv

# holds the CUPTI subscription from its constructor (preload it; see the file)
$(DRV_T)/libcupti_holder.so: sim/tests/cupti_holder.c $(CUPTI_LINK)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -lcupti
CUPTI_T_BINS += $(DRV_T)/libcupti_holder.so

ALL   += $(CUPTI_T_BINS)
TESTS += $(addprefix sim/tests/,$(addsuffix .sh,$(CUPTI_T_C) cupti_rt cupti_nodrv))
