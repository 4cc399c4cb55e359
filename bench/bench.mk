# bench/: `make bench` (bench/run.sh) measures devcheck's cost per launch and
# per allocation next to no devcheck, a pass-through floor shim and a CUPTI
# subscriber that does nothing (the floor under backend=cupti); tests/bench/
# checks that it runs and guards the instructions per launch.
BENCH_BUILD := $(BUILD)/bench
ALL += $(BENCH_BUILD)/launches $(BENCH_BUILD)/libc10.so $(BENCH_BUILD)/libfloor.so $(BENCH_BUILD)/libcuptifloor.so $(BENCH_BUILD)/regbench \
       $(BENCH_BUILD)/libcgmark.so
# library calls checked at their API, on the sim's libraries as tests/libapi/ links them (bench/libcalls.sh)
ALL += $(BENCH_BUILD)/libcalls
$(BENCH_BUILD)/libcalls: bench/libcalls.c $(LA_LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB) -l:libcublas.so.13 -l:libcublasLt.so.13 -l:libnccl.so.2 \
	    -l:libcusolver.so.12 \
	    -Wl,-rpath,'$$ORIGIN/../tests/libapi/lib' -Wl,-rpath-link=$(LA_LIB) -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64

$(BENCH_BUILD)/launches: bench/launches.cu $(BENCH_BUILD)/libc10.so $(BENCH_BUILD)/libsteady.so
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(BENCH_BUILD) -lc10 -lsteady -Xlinker -rpath='$$ORIGIN'

# A stripped library launching its own kernels (the lib* sections, issue 38).
$(BENCH_BUILD)/libsteady.so: bench/steady_lib.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -Xlinker -soname=libsteady.so,-s -o $@ $<

# PyTorch's libc10.so as far as the bench needs it (the block section).
$(BENCH_BUILD)/libc10.so: bench/c10_stub.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -fPIC -shared -Wl,-soname,libc10.so $< -o $@

# The floor: forwards only (no sanitizer: it runs under valgrind).
$(BENCH_BUILD)/libfloor.so: bench/floor.c bench/floor.map
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -fPIC -D_GNU_SOURCE -I$(CUDA_INC) -I. -fvisibility=hidden -shared \
	    -Wl,--version-script=bench/floor.map $< -o $@ -ldl

# The floor under backend=cupti: a subscriber that enables what devcheck does
# and returns at once (no sanitizer either).
$(BENCH_BUILD)/libcuptifloor.so: bench/cupti_floor.c cupti/cbids.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -fPIC -D_GNU_SOURCE -I$(CUDA_INC) -I. -shared $< -o $@ -ldl

# callgrind's switch for bench/torch_loops.py (ctypes; no sanitizer: under valgrind)
$(BENCH_BUILD)/libcgmark.so: bench/cgmark.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 $(WARN) -fPIC -fvisibility=hidden -shared $< -o $@

$(BENCH_BUILD)/regbench: bench/regbench.c $(DCCORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(DCCORE_CFLAGS) $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS)

.PHONY: bench
bench: all
	@BUILD=$(BUILD) sh bench/run.sh
	@echo
	@BUILD=$(BUILD) sh bench/torch.sh
	@echo
	@BUILD=$(BUILD) sh bench/steady.sh
	@echo
	@BUILD=$(BUILD) sh bench/libcalls.sh
