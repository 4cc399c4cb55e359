# CUPTI detection path tests (tests/cupti/): shell scripts and the programs
# they run, built into $(BUILD)/tests/cupti/ (part of ALL).
CT_BUILD := $(BUILD)/tests/cupti
CT_PROGS := $(CT_BUILD)/bypass $(CT_BUILD)/libholder.so $(CT_BUILD)/ctx_destroy $(CT_BUILD)/peer_again \
            $(CT_BUILD)/fakecupti/libcupti.so.13 $(CT_BUILD)/fakecupti12/libcupti.so.12 $(CT_BUILD)/late_sub \
            $(CT_BUILD)/fork_sub
ALL   += $(CT_PROGS)
TESTS += tests/cupti/bypass.sh tests/cupti/holder.sh tests/cupti/missing.sh tests/cupti/ctx_destroy.sh \
         tests/cupti/loader.sh tests/cupti/peer_again.sh tests/cupti/late_sub.sh \
         tests/cupti/fork_sub.sh tests/cupti/outermost.sh

$(CT_BUILD)/bypass: tests/cupti/bypass.cu tests/cupti/scale.cuh
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl

$(CT_BUILD)/libholder.so: tests/cupti/holder.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -ldl

# Linked with the toolkit's stub libcuda (SONAME libcuda.so.1): the sim's at run time.
$(CT_BUILD)/ctx_destroy: tests/cupti/ctx_destroy.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

$(CT_BUILD)/peer_again: tests/cupti/peer_again.cu tests/cupti/scale.cuh
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

# A stand-in libcupti.so.13 (loader.sh).
$(CT_BUILD)/fakecupti/libcupti.so.13: tests/cupti/fake_cupti.c cupti/cbids.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -shared -o $@ $< $(ALL_LDFLAGS) -Wl,-soname,libcupti.so.13 -ldl

# ... and CUDA 12's (loader.sh).
$(CT_BUILD)/fakecupti12/libcupti.so.12: tests/cupti/fake_cupti.c cupti/cbids.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I. -shared -o $@ $< $(ALL_LDFLAGS) -Wl,-soname,libcupti.so.12 -ldl

# Subscribes to CUPTI mid-run (late_sub.sh): linked with the sim's libcupti.
$(CT_BUILD)/late_sub: tests/cupti/late_sub.cu $(SIM_BUILD)/libcupti.so.13
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(SIM_BUILD) -lcupti -ldl

# Forks while a thread is inside devcheck's CUPTI yield (fork_sub.sh).
$(CT_BUILD)/fork_sub: tests/cupti/fork_sub.cu $(SIM_BUILD)/libcupti.so.13
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -L$(SIM_BUILD) -lcupti -lpthread
