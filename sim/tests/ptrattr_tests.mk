# The pointer queries as cuda.h documents them (sim/driver/README.md, "Pointer
# queries"), and the read-back line (README, "Memory nothing wrote").
PTR_T := $(BUILD)/tests/sim

$(PTR_T)/drv_ptrattr: sim/tests/drv_ptrattr.c sim/tests/drv_check.h $(EV_FILES) | $(DRV_LIB) $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DIDIR='"$(abspath $(EV_T))"' -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

$(PTR_T)/drv_readback: sim/tests/drv_readback.c sim/tests/drv_check.h $(DRV_T_IMAGES) | $(DRV_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DKDIR='"$(abspath $(PTR_T))"' -o $@ $< -rdynamic $(ALL_LDFLAGS) \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda

ALL   += $(PTR_T)/drv_ptrattr $(PTR_T)/drv_readback
TESTS += sim/tests/drv_ptrattr.sh sim/tests/drv_readback.sh
