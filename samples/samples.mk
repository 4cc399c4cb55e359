# samples/: small CUDA programs, one per field failure (see each file's head).
#   $(BUILD)/samples/NAME         the buggy program
#   $(BUILD)/samples/NAME_fixed   the same source built with -DFIXED
#   $(BUILD)/samples/pipeline_peer  a correct program (no fixed twin)
#   $(BUILD)/samples/driver_api_rt(_fixed)  driver_api.cu built with -DVIA_RUNTIME
# Built like any user program: nvcc, debug info, shared cudart, -rdynamic (for
# the sim's host twins).
SAMPLES_BUILD := $(BUILD)/samples
SAMPLES_BUGGY := vision_merge embedding_lookup cross_entropy host_tokens pipeline_struct driver_api \
                 driver_api_rt
SAMPLES_CORRECT := pipeline_peer
SAMPLE_PROGRAMS := $(addprefix $(SAMPLES_BUILD)/,$(SAMPLES_BUGGY) $(addsuffix _fixed,$(SAMPLES_BUGGY)) $(SAMPLES_CORRECT))
ALL += $(SAMPLE_PROGRAMS)

SAMPLES_FROM_OWN_SOURCE := $(filter-out driver_api_rt,$(SAMPLES_BUGGY)) $(SAMPLES_CORRECT)
$(addprefix $(SAMPLES_BUILD)/,$(SAMPLES_FROM_OWN_SOURCE)): $(SAMPLES_BUILD)/%: samples/%.cu samples/sample.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< $(filter %.o,$^) $(SAMPLE_LIBS)
$(addprefix $(SAMPLES_BUILD)/,$(addsuffix _fixed,$(filter-out driver_api_rt,$(SAMPLES_BUGGY)))): $(SAMPLES_BUILD)/%_fixed: samples/%.cu samples/sample.h
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -DFIXED -o $@ $< $(filter %.o,$^) $(SAMPLE_LIBS)

# driver_api loads its kernel from a fatbin embedded in the program
# (driver_api_image.S .incbin's it) instead of the runtime's registration;
# driver_api_rt gets its driver entry points from the runtime.
DRIVER_API_PROGRAMS := $(addprefix $(SAMPLES_BUILD)/,driver_api driver_api_fixed driver_api_rt driver_api_rt_fixed)
$(DRIVER_API_PROGRAMS): $(SAMPLES_BUILD)/driver_api_image.o
$(DRIVER_API_PROGRAMS): SAMPLE_LIBS := -ldl
$(SAMPLES_BUILD)/driver_api_rt: samples/driver_api.cu $(SAMPLES_BUILD)/driver_api_image.o
	$(NVCC) $(ALL_NVCCFLAGS) -DVIA_RUNTIME -o $@ $^ $(SAMPLE_LIBS)
$(SAMPLES_BUILD)/driver_api_rt_fixed: samples/driver_api.cu $(SAMPLES_BUILD)/driver_api_image.o
	$(NVCC) $(ALL_NVCCFLAGS) -DVIA_RUNTIME -DFIXED -o $@ $^ $(SAMPLE_LIBS)
$(SAMPLES_BUILD)/driver_api_kernel.fatbin: samples/driver_api_kernel.cu
	@mkdir -p $(@D)
	$(NVCC) -fatbin -o $@ $<
$(SAMPLES_BUILD)/driver_api_image.o: samples/driver_api_image.S $(SAMPLES_BUILD)/driver_api_kernel.fatbin
	$(CC) $(ALL_CFLAGS) -c -Wa,-I$(SAMPLES_BUILD) -o $@ $<

.PHONY: samples
samples: $(SAMPLE_PROGRAMS)
