# Fuzzing devcheck's readers of outside data (issue 40; README.md "Fuzzing").
#
# Targets (tests/fuzz/fuzz_*.c, one LLVMFuzzerTestOneInput each, asserting
# the reader's own invariants):
#   image    core/kernel/cubin.c (fatbin, ELF, PTX) and hostdwarf.c (a cubin's DWARF)
#   mangle   core/kernel/mangle*.c (parameter lists) and report/demangle.c (libiberty, bounded)
#   source   core/kernel/source.c: the NVRTC source scanner
#   json     common/json.c and report/merge.c (devcheck report's JSON Lines)
#   supp     report/suppress.c: the reader, the glob matcher, --gen-suppressions read back
#   options  core/base/options.c: DEVCHECK_OPTIONS and the wrapper's flags
#   dwline   report/dwline.c: a DWARF line program (.debug_line), the symbolizer's
#            lines; the one-shot decoder and the indexed lookup agree
#   elfdw    report/elfsym.c, elfdw.c: an object's ELF symbols and DWARF functions, the
#            symbolizer's names and inlined calls without libdw
#   replay   replay/replay.c, origins.c: a trace and the --origins TSV, judged as
#            `devcheck replay` judges them (the core started by dc_replay_run)
#
# `make test` replays tests/fuzz/corpus/TARGET/ (the seeds and every input
# that ever found a bug) through each target built without libFuzzer, with
# $(CC) and the build's SANITIZE: seconds, under every sanitizer and in the
# cross build.  `make fuzz` builds each target with clang's libFuzzer,
# ASan and UBSan and runs it FUZZ_TIME seconds (default 180) in turn, one at
# a time, niced; FUZZ_TARGETS picks some.  New inputs go to
# $(BUILD)/fuzz/corpus/TARGET, crashes to $(BUILD)/fuzz/artifacts/: a crash
# is fixed, then its input copied into tests/fuzz/corpus/TARGET/.
FUZZ_ALL     := image mangle source json supp options replay dwline elfdw
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_TIME    ?= 180
FUZZ_DIR     := $(BUILD)/tests/fuzz
FUZZ_REPLAYS := $(addprefix $(FUZZ_DIR)/replay_,$(FUZZ_ALL))

$(FUZZ_DIR)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c tests/fuzz/fuzz.h $(DCREPLAY_LIB) $(DCCORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(DCCORE_CFLAGS) tests/fuzz/fuzz_$*.c tests/fuzz/replay_main.c -o $@ $(ALL_LDFLAGS) $(DCREPLAY_LIB) $(DCCORE_LIB) \
	    $(DCCORE_LDLIBS) $(DCREPLAY_LDLIBS)

ALL   += $(FUZZ_REPLAYS)
TESTS += tests/fuzz/replay.sh

# libFuzzer: Debian's clang (mk/deps.sh).  The readers are compiled again
# with clang and coverage; nothing of this enters the product.
FUZZ_CC     ?= clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
               -D_GNU_SOURCE -fPIC -fvisibility=hidden -I$(CUDA_INC) -I.
FUZZ_OBJDIR := $(BUILD)/fuzz/obj
FUZZ_OBJS   := $(patsubst %.c,$(FUZZ_OBJDIR)/%.o,$(DCREPLAY_SRCS) $(DCCORE_SRCS) $(DCREPORT_SRCS) $(DCCOMMON_SRCS))
FUZZ_BINS   := $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_ALL))

$(FUZZ_OBJDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/libdcfuzz.a: $(FUZZ_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(BUILD)/fuzz/libdcfuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer tests/fuzz/fuzz_$*.c -o $@ $(BUILD)/fuzz/libdcfuzz.a $(DCCORE_LDLIBS) $(DCREPLAY_LDLIBS)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@BUILD=$(BUILD) FUZZ_TIME=$(FUZZ_TIME) sh tests/fuzz/run.sh $(FUZZ_TARGETS)

-include $(patsubst %.o,%.d,$(FUZZ_OBJS))
