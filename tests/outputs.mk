# Output and process-tree tests (issue 11's outputs and exit order, issue
# 14's CI files, suppressions, process trees, devcheck report):
# tests/outputs/*.sh and the programs they run.
OUT_BUILD := $(BUILD)/tests/outputs
OUT_PROGS := $(OUT_BUILD)/outprog $(OUT_BUILD)/libdtorlib.so $(OUT_BUILD)/libpylaunch.so
ALL   += $(OUT_PROGS)
TESTS += tests/outputs/closefds.sh tests/outputs/files.sh tests/outputs/exit_order.sh tests/outputs/signal.sh \
         tests/outputs/tree.sh tests/outputs/sarif_junit.sh tests/outputs/suppress.sh tests/outputs/report.sh \
         tests/outputs/mpirun.sh tests/outputs/html.sh tests/outputs/transfers.sh tests/outputs/hostile.sh \
         tests/outputs/gpus.sh

$(OUT_BUILD)/libdtorlib.so: tests/outputs/dtorlib.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -o $@ $<

$(OUT_BUILD)/outprog: tests/outputs/outprog.cu $(OUT_BUILD)/libdtorlib.so
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(OUT_BUILD) -ldtorlib -Xlinker -rpath='$$ORIGIN'

# A CUDA library Python loads with ctypes (the multiprocessing tree test).
$(OUT_BUILD)/libpylaunch.so: tests/outputs/pylaunch.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -o $@ $<

# torchrun needs the Python client virtualenv (mk/pyenv.sh): Python client
# tests run only without a sanitizer.
ifeq ($(SANITIZE),)
ifneq ($(wildcard mk/pyenv.sh),)
TESTS += tests/outputs/torchrun.sh
endif
endif
