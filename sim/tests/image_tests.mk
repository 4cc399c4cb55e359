# Tests of sim/driver/image.c (the code-image reader) on code nvcc builds here.
# Each test compiles image.c into its own binary; the images are built once.
include sim/driver/image.mk

IMAGE_T    := $(BUILD)/tests/image
IMAGE_CU   := sim/tests/image_kernels.cu
IMAGE_RDC  := sim/tests/image_rdc.cu
IMAGE_NVCC := $(NVCC) -Wno-deprecated-gpu-targets
# keep only a fatbin wrapper and what it points at, under a section name the
# linker gives __start_/__stop_ symbols (".nvFatBinSegment" is no C name)
IMAGE_WRAP_ONLY := objcopy -j .nvFatBinSegment -j .nv_fatbin -j .bss \
                   --rename-section .nvFatBinSegment=nvFatBinSegment

IMAGE_FILES := $(addprefix $(IMAGE_T)/,kernels.cubin kernels.ptx kernels.fatbin \
               kernels_multi.fatbin kernels_zstd.fatbin kernels_ptx.fatbin rdc.cubin)
IMAGE_WRAPS := $(IMAGE_T)/wrap.o $(IMAGE_T)/wrap_rdc.o

$(IMAGE_T)/kernels.cubin: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -cubin -o $@ $<
$(IMAGE_T)/kernels.ptx: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -ptx -o $@ $<
# nvcc's default: SASS for the default arch, zstd-compressed PTX
$(IMAGE_T)/kernels.fatbin: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -fatbin -o $@ $<
# several SASS entries and PTX
$(IMAGE_T)/kernels_multi.fatbin: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -fatbin -gencode arch=compute_80,code=sm_80 \
	    -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -o $@ $<
# compressed SASS
$(IMAGE_T)/kernels_zstd.fatbin: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -fatbin -gencode arch=compute_80,code=sm_80 -compress-mode=size -o $@ $<
# PTX only (what the driver would JIT)
$(IMAGE_T)/kernels_ptx.fatbin: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -fatbin -gencode arch=compute_80,code=compute_80 -o $@ $<
$(IMAGE_T)/rdc.cubin: $(IMAGE_RDC)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -rdc=true -cubin -o $@ $<
# the wrapper of an ordinary `nvcc -c` object (version 1) ...
$(IMAGE_T)/kernels.o: $(IMAGE_CU)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -c -o $@ $<
$(IMAGE_T)/wrap.o: $(IMAGE_T)/kernels.o
	$(IMAGE_WRAP_ONLY) $< $@
# ... and of a device-linked relocatable object (version 2)
$(IMAGE_T)/rdc.o: $(IMAGE_RDC)
	@mkdir -p $(@D)
	$(IMAGE_NVCC) -rdc=true -c -o $@ $<
$(IMAGE_T)/rdc_dlink.o: $(IMAGE_T)/rdc.o
	$(IMAGE_NVCC) -dlink -o $@ $<
$(IMAGE_T)/wrap_rdc.o: $(IMAGE_T)/rdc_dlink.o
	$(IMAGE_WRAP_ONLY) $< $@

IMAGE_TEST_CFLAGS = $(ALL_CFLAGS) -Isim/driver -DIMAGE_DIR='"$(abspath $(IMAGE_T))"'
IMAGE_DEPS := $(SIM_IMAGE_SRCS) sim/driver/image.h sim/driver/ptxflow.h

$(BUILD)/tests/image_parse: sim/tests/image_parse.c $(IMAGE_DEPS) $(IMAGE_FILES) $(IMAGE_WRAPS)
	$(CC) $(IMAGE_TEST_CFLAGS) -o $@ $< $(SIM_IMAGE_SRCS) $(IMAGE_WRAPS) \
	    $(ALL_LDFLAGS) -Wl,-z,noexecstack $(SIM_IMAGE_LIBS)
$(BUILD)/tests/image_fuzz: sim/tests/image_fuzz.c $(IMAGE_DEPS) $(IMAGE_FILES)
	$(CC) $(IMAGE_TEST_CFLAGS) -o $@ $< $(SIM_IMAGE_SRCS) $(ALL_LDFLAGS) $(SIM_IMAGE_LIBS)
$(BUILD)/tests/image_twin: sim/tests/image_twin.c $(IMAGE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(IMAGE_TEST_CFLAGS) -o $@ $< $(SIM_IMAGE_SRCS) $(ALL_LDFLAGS) $(SIM_IMAGE_LIBS)

IMAGE_TESTS := $(BUILD)/tests/image_parse $(BUILD)/tests/image_fuzz $(BUILD)/tests/image_twin
# Not under ThreadSanitizer: each is one thread running image.c and
# ptxflow.c, which take no lock and start no thread, so TSan has nothing to
# report (image_fuzz took 72 s of the thread variant's CI run; issue 35).
# AddressSanitizer and UBSan run them.
ifeq ($(SANITIZE),thread)
IMAGE_TESTS :=
endif
ALL   += $(IMAGE_TESTS)
TESTS += $(IMAGE_TESTS)

# sim/gen_stubs.py tests
include sim/tests/stubs_tests.mk
