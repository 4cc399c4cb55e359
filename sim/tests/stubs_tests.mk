# Tests of sim/gen_stubs.py: stubs for both libraries generated against a
# stand-in object (stubs_impl.c), compiled with the project's warnings,
# called (stubs_call), and linked into libraries whose exports are compared
# with NVIDIA's (stubs_exports.sh).
STUBS_T    := $(BUILD)/tests/stubs
STUBS_GEN  := $(PYTHON) sim/gen_stubs.py --cuda-home $(CUDA_HOME) --cc $(CC)
STUBS_IMPL := $(STUBS_T)/impl.o
STUBS_ZDEFS := $(if $(SANITIZE),,-Wl,-z,defs)

$(STUBS_IMPL): sim/tests/stubs_impl.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(STUBS_T)/drv_stubs.c $(STUBS_T)/drv.map $(STUBS_T)/drv.list &: sim/gen_stubs.py $(STUBS_IMPL)
	$(STUBS_GEN) --api driver --real $(CUDA_HOME)/lib64/stubs/libcuda.so \
	    -o $(STUBS_T)/drv_stubs.c --map $(STUBS_T)/drv.map --list $(STUBS_T)/drv.list $(STUBS_IMPL)
$(STUBS_T)/rt_stubs.c $(STUBS_T)/rt.map $(STUBS_T)/rt.list &: sim/gen_stubs.py $(STUBS_IMPL)
	$(STUBS_GEN) --api runtime --real $(CUDA_HOME)/lib64/libcudart.so.13 \
	    --version-node libcudart.so.13 \
	    -o $(STUBS_T)/rt_stubs.c --map $(STUBS_T)/rt.map --list $(STUBS_T)/rt.list $(STUBS_IMPL)

$(STUBS_T)/%_stubs.o: $(STUBS_T)/%_stubs.c
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(STUBS_T)/libcuda.so.1: $(STUBS_T)/drv_stubs.o $(STUBS_IMPL) $(STUBS_T)/drv.map
	$(CC) -shared -o $@ $(STUBS_T)/drv_stubs.o $(STUBS_IMPL) -Wl,-soname,libcuda.so.1 \
	    -Wl,--version-script=$(STUBS_T)/drv.map $(STUBS_ZDEFS) $(ALL_LDFLAGS)
$(STUBS_T)/libcudart.so.13: $(STUBS_T)/rt_stubs.o $(STUBS_IMPL) $(STUBS_T)/rt.map
	$(CC) -shared -o $@ $(STUBS_T)/rt_stubs.o $(STUBS_IMPL) -Wl,-soname,libcudart.so.13 \
	    -Wl,--version-script=$(STUBS_T)/rt.map $(STUBS_ZDEFS) $(ALL_LDFLAGS)

$(BUILD)/tests/stubs_call: sim/tests/stubs_call.c $(STUBS_T)/drv_stubs.o $(STUBS_T)/rt_stubs.o $(STUBS_IMPL)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(STUBS_T)/drv_stubs.o $(STUBS_T)/rt_stubs.o $(STUBS_IMPL) \
	    $(ALL_LDFLAGS) -lpthread

# stubs_exports.sh reads these: build them with the test suite
ALL   += $(BUILD)/tests/stubs_call $(STUBS_T)/libcuda.so.1 $(STUBS_T)/libcudart.so.13
TESTS += $(BUILD)/tests/stubs_call sim/tests/stubs_exports.sh
