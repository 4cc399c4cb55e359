# Unit tests of the devcheck core (core/: registry, check, options; report/):
# C programs linked with $(DCCORE_LIB), and shell drivers that check the JSON
# output against report/finding.schema.json with a stdlib-only validator.
# layering.sh checks the dependency graph between the folders.
UNIT_DIR   := $(BUILD)/tests/unit
UNIT_PROGS := test_registry test_blocks test_options test_check test_ownframes test_evidence test_demangle test_pyframes test_stack \
              test_symindex
UNIT_BINS  := $(addprefix $(UNIT_DIR)/,$(UNIT_PROGS))

# Each program is compiled and linked in one step; -MMD -MP write the
# headers it includes to $(UNIT_DIR)/NAME.d (as core/, report/... do for
# their objects, included at the end of this file), so a changed header
# rebuilds the programs that include it.
$(UNIT_DIR)/%: tests/unit/%.c $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS) $(UNIT_EXTRA_LIBS)

# The core inside a shared object, as in libdevcheck.so: its own frames must
# not show in reports (test_ownframes).
$(UNIT_DIR)/libownframes.so: tests/unit/ownframes_lib.c $(DCCORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -shared $< -o $@ $(ALL_LDFLAGS) $(DCCORE_LIB) $(DCCORE_LDLIBS)

$(UNIT_DIR)/test_ownframes: tests/unit/test_ownframes.c $(UNIT_DIR)/libownframes.so
	$(CC) $(DCCORE_CFLAGS) -MMD -MP $< -o $@ $(ALL_LDFLAGS) -L$(UNIT_DIR) -lownframes -Wl,-rpath,'$$ORIGIN'

# test_pyframes: a C program that runs a real CPython; the script it runs
# calls back into it through ctypes.CDLL(None).
$(UNIT_DIR)/test_pyframes: UNIT_EXTRA_LIBS := -rdynamic

# test_symindex asks libdw itself what the index must answer.
$(UNIT_DIR)/test_symindex: UNIT_EXTRA_LIBS := -ldw

# test_check stands for a C++ program (test_demangle for one without a C++ runtime).
$(UNIT_DIR)/test_check: UNIT_EXTRA_LIBS := -lstdc++

# Kernel images for test_evidence, made by nvcc and ptxas as users' are: a
# fatbin with nvcc's default compression (PTX in zstd), one with LZ4
# (-compress-mode=speed), one with every entry in zstd (-compress-mode=size),
# a cubin, PTX, and a cubin of PTX with .ptr parameters.
EVIDENCE_DIR  := $(UNIT_DIR)/evidence
EVIDENCE_GEN  := -gencode arch=compute_80,code=[sm_80,compute_80]
EVIDENCE_IMGS := $(addprefix $(EVIDENCE_DIR)/,evidence.fatbin evidence_lz4.fatbin evidence_size.fatbin \
                   evidence.cubin evidence.ptx evidence_ptr.ptx evidence_ptr.cubin untyped.cubin untyped_G.cubin)
# an extern "C" kernel's cubin without and with its own DWARF (-G)
$(EVIDENCE_DIR)/untyped.cubin: tests/e2e/untyped.cu
	@mkdir -p $(@D)
	$(NVCC) -arch=sm_80 -cubin -o $@ $<
$(EVIDENCE_DIR)/untyped_G.cubin: tests/e2e/untyped.cu
	@mkdir -p $(@D)
	$(NVCC) -arch=sm_80 -cubin -G -o $@ $<
$(EVIDENCE_DIR)/evidence.fatbin: tests/unit/evidence_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) $(EVIDENCE_GEN) -fatbin -o $@ $<
$(EVIDENCE_DIR)/evidence_lz4.fatbin: tests/unit/evidence_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) $(EVIDENCE_GEN) -compress-mode=speed -fatbin -o $@ $<
$(EVIDENCE_DIR)/evidence_size.fatbin: tests/unit/evidence_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) $(EVIDENCE_GEN) -compress-mode=size -fatbin -o $@ $<
$(EVIDENCE_DIR)/evidence.cubin: tests/unit/evidence_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) -arch=sm_80 -cubin -o $@ $<
$(EVIDENCE_DIR)/evidence.ptx: tests/unit/evidence_kernels.cu
	@mkdir -p $(@D)
	$(NVCC) -arch=sm_80 -ptx -o $@ $<
$(EVIDENCE_DIR)/evidence_ptr.ptx: tests/unit/evidence_ptr.ptx
	@mkdir -p $(@D)
	cp $< $@
$(EVIDENCE_DIR)/evidence_ptr.cubin: tests/unit/evidence_ptr.ptx
	@mkdir -p $(@D)
	$(CUDA_HOME)/bin/ptxas -arch=sm_80 -o $@ $<

ALL   += $(UNIT_BINS) $(EVIDENCE_IMGS)
UNIT_TESTS := $(UNIT_DIR)/test_registry $(UNIT_DIR)/test_blocks $(UNIT_DIR)/test_options $(UNIT_DIR)/test_demangle $(UNIT_DIR)/test_stack $(UNIT_DIR)/test_symindex \
              tests/unit/check_reports.sh \
              tests/unit/ownframes.sh tests/unit/evidence.sh tests/unit/pyframes.sh
# the house's rules are read from the sources and the plain build's objects:
# the same whatever the sanitizer or the target, checked once
ifeq ($(SANITIZE)$(CROSS),)
UNIT_TESTS += tests/unit/layering.sh tests/unit/layering_planted.sh
endif
TESTS += $(UNIT_TESTS)

.PHONY: unit
unit: $(UNIT_BINS)
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) sh tests/run.sh $(UNIT_TESTS)

# report/'s outputs called directly (issues 11 and 14): records over 64 KiB,
# path expansion, suppressions, the JSON reader and the merge.
UNIT_PROGS += test_outputs
ALL   += $(UNIT_DIR)/test_outputs
TESTS += $(UNIT_DIR)/test_outputs

# core/verdict/framework.c called as devcheck's Python hook calls it (issue 27): the
# message test, the note, the fix, the JSON record.
UNIT_PROGS += test_framework
ALL   += $(UNIT_DIR)/test_framework
TESTS += $(UNIT_DIR)/test_framework

# Every finding kind (report/kinds.def) through every merged sink (issue 41):
# SARIF's rules and results, JUnit, HTML, the text of `devcheck report`.
UNIT_PROGS += test_kinds
ALL   += $(UNIT_DIR)/test_kinds
TESTS += $(UNIT_DIR)/test_kinds

# report/dwline.c against libdw itself (issue 38): every row of real
# objects' line programs, and every file name (the test links libdw;
# libdevcheck.so never does).
UNIT_PROGS += test_dwline
ALL   += $(UNIT_DIR)/test_dwline
TESTS += $(UNIT_DIR)/test_dwline
$(UNIT_DIR)/test_dwline: UNIT_EXTRA_LIBS := -ldw -lelf

# report/elfdw.c (the symbolizer without libdw) against the symbolizer's
# libdw path, frame by frame (issue 38).
UNIT_PROGS += test_elfdw
ALL   += $(UNIT_DIR)/test_elfdw
TESTS += $(UNIT_DIR)/test_elfdw

# test_elfdw on a library of 17,000 symbols without DWARF (elfdw_libs.sh):
# as built, stripped to its .dynsym, and stripped with a .gnu_debuglink to
# its debug file beside it.
ELFDW_LIBS := $(addprefix $(UNIT_DIR)/,libelfdw_big.so libelfdw_dyn.so libelfdw_link.so)
ALL   += $(ELFDW_LIBS)
TESTS += tests/unit/elfdw_libs.sh
$(UNIT_DIR)/libelfdw_big.so: tests/unit/elfdw_big.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g0 -fPIC -shared $< -o $@
$(UNIT_DIR)/libelfdw_dyn.so: $(UNIT_DIR)/libelfdw_big.so
	$(OBJCOPY) --strip-all $< $@
$(UNIT_DIR)/libelfdw_link.so: $(UNIT_DIR)/libelfdw_big.so
	$(OBJCOPY) --only-keep-debug $< $(UNIT_DIR)/libelfdw_link.debug
	cd $(UNIT_DIR) && $(OBJCOPY) --strip-all --add-gnu-debuglink=libelfdw_link.debug libelfdw_big.so libelfdw_link.so

# Hostile names through report/ (issue 40): text escapes, valid UTF-8 in
# JSON with the raw bytes recoverable, --gen-suppressions read back, the
# linear glob.
UNIT_PROGS += test_hostile
ALL   += $(UNIT_DIR)/test_hostile
TESTS += $(UNIT_DIR)/test_hostile

# the headers each unit program includes (written by -MMD -MP above; here,
# after the last UNIT_PROGS +=)
-include $(addprefix $(UNIT_DIR)/,$(addsuffix .d,$(UNIT_PROGS) libownframes))
