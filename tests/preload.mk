# Interposer tests (tests/preload/): shell scripts, and the small programs
# they run, built into $(BUILD)/tests/preload/ (part of ALL).
PT_BUILD := $(BUILD)/tests/preload
PT_PROGS := $(PT_BUILD)/xdev $(PT_BUILD)/ctor_main $(PT_BUILD)/libctor.so $(PT_BUILD)/libctor_kern.so \
            $(PT_BUILD)/dlsym_test $(PT_BUILD)/libnext_a.so $(PT_BUILD)/libnext_b.so \
            $(PT_BUILD)/procaddr $(PT_BUILD)/fork_test $(PT_BUILD)/nodriver $(PT_BUILD)/launches \
            $(PT_BUILD)/rt12_main $(PT_BUILD)/threads $(PT_BUILD)/optional $(PT_BUILD)/nvtx \
            $(PT_BUILD)/fakedrv/libcuda.so.1 $(PT_BUILD)/fakedrv_lacking/libcuda.so.1 \
            $(PT_BUILD)/throw_main $(PT_BUILD)/libthrow.so $(PT_BUILD)/xdev_nodebug \
            $(PT_BUILD)/local_main $(PT_BUILD)/libxlocal.so $(PT_BUILD)/liblocal_twin.so \
            $(PT_BUILD)/liblocal_nvrtc.so \
            $(PT_BUILD)/capture $(PT_BUILD)/stale_main $(PT_BUILD)/stale_kernels.cubin
ALL   += $(PT_PROGS)
TESTS += tests/preload/exports.sh tests/preload/wrapper.sh tests/preload/dlsym.sh \
         tests/preload/procaddr.sh tests/preload/ctor.sh tests/preload/xdev.sh \
         tests/preload/bad_options.sh tests/preload/exitcode.sh tests/preload/fork.sh \
         tests/preload/nodriver.sh tests/preload/launches.sh tests/preload/rt12.sh \
         tests/preload/threads.sh tests/preload/optional.sh tests/preload/unwind.sh \
         tests/preload/debuginfod.sh tests/preload/rtld_local.sh tests/preload/capture.sh \
         tests/preload/stale.sh tests/preload/nvtx.sh tests/preload/nvrtc_local.sh

$(PT_BUILD)/xdev: tests/preload/xdev.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl

# xdev without debug info (stripped, with its build id): symbolizing it is a
# question for debuginfod (debuginfod.sh).
$(PT_BUILD)/xdev_nodebug: tests/preload/xdev.cu
	@mkdir -p $(@D)
	$(NVCC) -O1 -cudart shared -Xlinker -s,--build-id -Xlinker -rpath-link=$(CUDA_HOME)/lib64 -o $@ $< -ldl

$(PT_BUILD)/nvtx: tests/preload/nvtx.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl -lpthread

$(PT_BUILD)/libctor_kern.so: tests/preload/ctor_kern.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -o $@ $<

$(PT_BUILD)/libctor.so: tests/preload/ctor_lib.c $(PT_BUILD)/libctor_kern.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -L$(PT_BUILD) -lctor_kern \
	    -L$(CUDA_HOME)/lib64 -lcudart -Wl,-rpath,'$$ORIGIN'

$(PT_BUILD)/ctor_main: tests/preload/ctor_main.c $(PT_BUILD)/libctor.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(PT_BUILD) -lctor -Wl,-rpath,'$$ORIGIN' \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64

$(PT_BUILD)/libnext_%.so: tests/preload/next_%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -ldl

# next_a before next_b: dlsym(RTLD_NEXT) in next_a must find next_b's symbol.
$(PT_BUILD)/dlsym_test: tests/preload/dlsym_test.c $(PT_BUILD)/libnext_a.so $(PT_BUILD)/libnext_b.so
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(PT_BUILD) -Wl,--no-as-needed -lnext_a -lnext_b \
	    -Wl,--as-needed -Wl,-rpath,'$$ORIGIN' -ldl

$(PT_BUILD)/procaddr: tests/preload/procaddr.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl

# C programs only, so they run in a cross build too (mk/cross.mk), on the
# kernel of xdev.cu from its cubin (device code: the same for every host).
#   drvapi.sh          driver entry points through dlsym at either glibc version
#   glibc_versions.sh  dlsym / __libc_start_main / exit versions = libc's (readelf)
#   rt12_kernel.sh     __cudaLaunchKernel(_ptsz)@libcudart.so.12 (CUDA 12.9)
#   refuse_exit.sh     a refused pointer query, then exit(2): pointer_refused at exit
ALL   += $(PT_BUILD)/xdev.cubin $(PT_BUILD)/drvapi $(PT_BUILD)/rt12_kernel $(PT_BUILD)/refuse_exit
TESTS += tests/preload/drvapi.sh tests/preload/glibc_versions.sh tests/preload/rt12_kernel.sh \
         tests/preload/refuse_exit.sh

$(PT_BUILD)/refuse_exit: tests/preload/refuse_exit.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl

$(PT_BUILD)/xdev.cubin: tests/preload/xdev.cu
	@mkdir -p $(@D)
	$(NVCC) -Wno-deprecated-gpu-targets -cubin -o $@ $<

$(PT_BUILD)/drvapi: tests/preload/drvapi.c preload/arch.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -o $@ $< $(ALL_LDFLAGS) -ldl

$(PT_BUILD)/rt12_kernel: tests/preload/rt12_kernel.c preload/rt_proto.h $(PT_BUILD)/rt12/libcudart.so.12
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -o $@ $< $(ALL_LDFLAGS) $(PT_BUILD)/rt12/libcudart.so.12 \
	    -L$(CUDA_HOME)/lib64/stubs -lcuda -Wl,-rpath,'$$ORIGIN/rt12'

$(PT_BUILD)/fork_test: tests/preload/fork_test.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl -lpthread

$(PT_BUILD)/nodriver: tests/preload/nodriver.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl

# Linked with the toolkit's stub libcuda (SONAME libcuda.so.1): at run time
# the sim's, and devcheck's exported hooks in front of it.
$(PT_BUILD)/launches: tests/preload/launches.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

# A stand-in for CUDA 12's libcudart.so.12 and a program built against it.
$(PT_BUILD)/rt12/libcudart.so.12: tests/preload/fake_rt12.c tests/preload/fake_rt12.map preload/rt_proto.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -shared -o $@ $< $(ALL_LDFLAGS) -Wl,-soname,libcudart.so.12 \
	    -Wl,--version-script=tests/preload/fake_rt12.map

$(PT_BUILD)/rt12_main: tests/preload/rt12_main.c $(PT_BUILD)/rt12/libcudart.so.12
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) $(PT_BUILD)/rt12/libcudart.so.12 -Wl,-rpath,'$$ORIGIN/rt12'

$(PT_BUILD)/capture: tests/preload/capture.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -lpthread

$(PT_BUILD)/threads: tests/preload/threads.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -lpthread

# Stand-in drivers with only the required entry points (from hooks.def and
# core/base/cudacall.def), one
# of them also without cuMemFree_v2.
$(PT_BUILD)/fakedrv/libcuda.so.1: tests/preload/fake_driver.c preload/hooks.def core/base/cudacall.def
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -shared -o $@ $< $(ALL_LDFLAGS) -Wl,-soname,libcuda.so.1

$(PT_BUILD)/fakedrv_lacking/libcuda.so.1: tests/preload/fake_driver.c preload/hooks.def core/base/cudacall.def \
                                           tests/preload/fake_driver_lacking.map
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -shared -o $@ $< $(ALL_LDFLAGS) -Wl,-soname,libcuda.so.1 \
	    -Wl,--version-script=tests/preload/fake_driver_lacking.map

$(PT_BUILD)/optional: tests/preload/optional.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl

# unwind.sh: a C program (no C++ runtime at start) and a C++ library it loads
# late.  The library is not instrumented: it only throws.
$(PT_BUILD)/throw_main: tests/preload/throw_main.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

$(PT_BUILD)/libthrow.so: tests/preload/throw_lib.cc
	@mkdir -p $(@D)
	$(CXX) -O1 -g -fPIC -shared -Wall -Wextra -Werror -o $@ $<

# rtld_local.sh, rt12.sh: a CUDA library with its own libcudart.so.13
# dependency, loaded by the programs RTLD_LOCAL, and its kernel's twin.
$(PT_BUILD)/libxlocal.so: tests/preload/local_lib.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -o $@ $<

$(PT_BUILD)/liblocal_twin.so: tests/preload/local_twin.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS)

# nvrtc_local.sh: a library with its own libnvrtc.so.13 dependency, loaded
# RTLD_LOCAL (its kernel's twin: liblocal_twin.so).
$(PT_BUILD)/liblocal_nvrtc.so: tests/preload/local_nvrtc.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda \
	    -L$(CUDA_HOME)/lib64 -lnvrtc -Wl,-rpath=$(CUDA_HOME)/lib64

$(PT_BUILD)/local_main: tests/preload/local_main.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl

# stale.sh: function handles reused after a context's end.
$(PT_BUILD)/stale_kernels.cubin: tests/preload/stale_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) -Wno-deprecated-gpu-targets -cubin -o $@ $<

$(PT_BUILD)/stale_main: tests/preload/stale_main.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64/stubs -lcuda
