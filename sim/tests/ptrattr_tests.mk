# The pointer queries as cuda.h documents them (sim/driver/README.md, "Pointer
# queries").
PTR_T := $(BUILD)/tests/sim

$(PTR_T)/drv_ptrattr: sim/tests/drv_ptrattr.c sim/tests/drv_check.h $(EV_FILES) | $(DRV_LIB) $(RT_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DIDIR='"$(abspath $(EV_T))"' -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

ALL   += $(PTR_T)/drv_ptrattr
TESTS += sim/tests/drv_ptrattr.sh
