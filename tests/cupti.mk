# CUPTI detection path tests (tests/cupti/): shell scripts and the programs
# they run, built into $(BUILD)/tests/cupti/ (part of ALL).
CT_BUILD := $(BUILD)/tests/cupti
CT_PROGS := $(CT_BUILD)/bypass $(CT_BUILD)/libholder.so
ALL   += $(CT_PROGS)
TESTS += tests/cupti/bypass.sh tests/cupti/holder.sh tests/cupti/missing.sh

$(CT_BUILD)/bypass: tests/cupti/bypass.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -o $@ $< -ldl

$(CT_BUILD)/libholder.so: tests/cupti/holder.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -ldl
