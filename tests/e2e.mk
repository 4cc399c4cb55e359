# End-to-end tests: the samples on the sim under devcheck (tests/e2e/).
# Shell scripts; they need the samples, the sim, libdevcheck.so and the
# wrapper, all in ALL.  Expected findings: tests/e2e/expected/NAME.txt.
TESTS += tests/e2e/samples_sim.sh tests/e2e/buggy_preload.sh tests/e2e/buggy_wrapper.sh \
         tests/e2e/fixed_clean.sh tests/e2e/peer_pipeline.sh tests/e2e/transparent.sh \
         tests/e2e/alloc_sites.sh tests/e2e/kernel_filter.sh tests/e2e/wrapper_env.sh tests/e2e/stats.sh \
         tests/e2e/option_syntax.sh

# mode=migrate, sync=1, halt_on_error (issue 5): the samples under each mode,
# and modes_prog (threads migrating at once; a captured launch).
E2E_BUILD := $(BUILD)/tests/e2e
ALL += $(E2E_BUILD)/modes_prog
TESTS += tests/e2e/migrate.sh tests/e2e/migrate_fallback.sh tests/e2e/migrate_threads.sh \
         tests/e2e/sync.sh tests/e2e/halt.sh
$(E2E_BUILD)/modes_prog: tests/e2e/modes_prog.cu samples/sample.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -lpthread -L$(CUDA_HOME)/lib64/stubs -lcuda

# `make demo` itself, so README's main command cannot rot: every buggy sample
# reported, every fixed one clean, every buggy one run to its correct result
# under --mode migrate.  Not under a sanitizer: the demo runs the wrapper as a
# user does, without the sanitizer runtime preloaded.
ifeq ($(SANITIZE),)
TESTS += demo/run.sh
endif

# Memory devcheck never saw allocated (a __device__ variable, a module global
# from cuModuleGetGlobal): its owner comes from the driver.
ALL += $(E2E_BUILD)/unseen_memory $(E2E_BUILD)/unseen_kernel.fatbin
TESTS += tests/e2e/unseen_memory.sh

# A launch inside an inlined function: the launch stack's inline chain
# (report/symbolize.c) in the text and JSON reports.
ALL += $(E2E_BUILD)/inline_prog
TESTS += tests/e2e/inline_stack.sh
$(E2E_BUILD)/inline_prog: tests/e2e/inline_prog.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $<

# Drivers without cuFuncGetParamInfo: the suite again with the layout entry
# points hidden, and the driver-API programs as driver 12.2.
TESTS += tests/e2e/old_driver.sh
$(E2E_BUILD)/unseen_memory: tests/e2e/unseen_memory.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda
$(E2E_BUILD)/unseen_kernel.fatbin: tests/e2e/unseen_kernel.cu
	@mkdir -p $(@D)
	$(NVCC) -fatbin -o $@ $<

# What a word of a closed library's kernel proves (issue 25): a stand-in
# library whose file name is cuBLASLt's soname, and a program that compiles
# the same kernel into itself (tests/e2e/libkernels.sh).
ALL += $(E2E_BUILD)/libkernels/libcublasLt.so.13 $(E2E_BUILD)/libkernels_prog $(E2E_BUILD)/libkernels/splitk.cubin
TESTS += tests/e2e/libkernels.sh
$(E2E_BUILD)/libkernels/libcublasLt.so.13: tests/e2e/libkernels_lib.cu tests/e2e/libkernels.cuh
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -Xlinker -soname=libcublasLt.so.13 -o $@ $< \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda
# an RPATH (not a RUNPATH), as PyTorch's wheels carry: it beats LD_LIBRARY_PATH,
# whose build/sim holds the sim's own libcublasLt.so.13 (sim/libs/)
$(E2E_BUILD)/libkernels_prog: tests/e2e/libkernels_prog.cu tests/e2e/libkernels.cuh $(E2E_BUILD)/libkernels/libcublasLt.so.13
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(E2E_BUILD)/libkernels -l:libcublasLt.so.13 -Xlinker -rpath='$$ORIGIN/libkernels' \
	    -Xlinker --disable-new-dtags -L$(CUDA_HOME)/lib64/stubs -lcuda
$(E2E_BUILD)/libkernels/splitk.cubin: tests/e2e/libkernels.cuh
	@mkdir -p $(@D)
	$(NVCC) -cubin -arch=sm_80 -DLIBKERNELS_KERNEL_ONLY -x cu -o $@ $<

# sync=1 names the culprit of a kernel without types (tests/e2e/sync.sh):
# an extern "C" kernel in a cubin, handed pageable host memory.
ALL += $(E2E_BUILD)/sync_rawkernel $(E2E_BUILD)/rawkernel.cubin
$(E2E_BUILD)/sync_rawkernel: tests/e2e/sync_rawkernel.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda
$(E2E_BUILD)/rawkernel.cubin: tests/e2e/rawkernel.cu
	@mkdir -p $(@D)
	$(NVCC) -cubin -arch=sm_80 -o $@ $<

# Kernels without types (issue 28, tests/e2e/untyped.sh): an extern "C"
# kernel's cubin without and with its own DWARF (-G; -g alone writes none),
# loaded through the driver API.
ALL += $(E2E_BUILD)/untyped_prog $(E2E_BUILD)/untyped.cubin $(E2E_BUILD)/untyped_G.cubin
TESTS += tests/e2e/untyped.sh
$(E2E_BUILD)/untyped_prog: tests/e2e/untyped_prog.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -L$(CUDA_HOME)/lib64 -lnvrtc \
	    -Xlinker -rpath=$(CUDA_HOME)/lib64
$(E2E_BUILD)/untyped.cubin: tests/e2e/untyped.cu
	@mkdir -p $(@D)
	$(NVCC) -cubin -arch=sm_80 -o $@ $<
$(E2E_BUILD)/untyped_G.cubin: tests/e2e/untyped.cu
	@mkdir -p $(@D)
	$(NVCC) -cubin -arch=sm_80 -G -o $@ $<

# One call site, one finding, however often and by whichever of devcheck's
# paths its launches are checked (tests/e2e/repeat.sh): a program launching
# a bug three times itself and through a library, with symbols and stripped.
ALL += $(E2E_BUILD)/repeat/librepeat.so $(E2E_BUILD)/repeat/stripped/librepeat.so $(E2E_BUILD)/repeat_prog
TESTS += tests/e2e/repeat.sh tests/e2e/repeat_deep.sh
$(E2E_BUILD)/repeat/librepeat.so: tests/e2e/repeat_lib.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -Xlinker -soname=librepeat.so -o $@ $<
$(E2E_BUILD)/repeat/stripped/librepeat.so: $(E2E_BUILD)/repeat/librepeat.so
	@mkdir -p $(@D)
	strip -o $@ $<
$(E2E_BUILD)/repeat_prog: tests/e2e/repeat_prog.cu $(E2E_BUILD)/repeat/librepeat.so
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(E2E_BUILD)/repeat -l:librepeat.so -Xlinker -rpath='$$ORIGIN/repeat'
