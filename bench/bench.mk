# bench/: the overhead benchmark (`make bench`); not part of `make test`.
BENCH_BUILD := $(BUILD)/bench
ALL += $(BENCH_BUILD)/launches

$(BENCH_BUILD)/launches: bench/launches.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $<

.PHONY: bench
bench: all
	@BUILD=$(BUILD) sh bench/run.sh
