# report/ build rules: the report archive (findings -> text, JSON Lines,
# summary; stacks and symbolization).  It links nothing of core/ or preload/.
#
# DCREPORT_LIB  static archive of report/: position-independent,
#               -fvisibility=hidden (nothing in it is exported from the
#               shared object it is linked into).
DCREPORT_LIB  := $(BUILD)/obj/libdcreport.a
DCREPORT_SRCS := report/report.c report/store.c report/finding.c report/sinks.c report/text.c report/jsonl.c \
                 report/merge.c report/sarif.c report/junit.c report/html.c report/documents.c report/suppress.c \
                 report/kinds.c report/testname.c report/matrix.c report/counts.c report/summary.c report/hint.c report/log.c \
                 report/demangle.c report/pystack.c report/frames.c report/ranges.c \
                 report/stack.c report/stackdepot.c report/symbolize.c report/modmap.c report/symindex.c report/symwant.c report/fold.c report/symline.c report/dwline.c report/elfdw.c report/elfsym.c report/symelf.c \
                 report/stats.c report/gpus.c report/mgpus.c
DCREPORT_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(DCREPORT_SRCS))

ALL += $(DCREPORT_LIB)

$(BUILD)/obj/report/%.o: report/%.c
	@mkdir -p $(dir $@)
	$(CC) $(DCCORE_CFLAGS) -MMD -MP -c $< -o $@

$(DCREPORT_LIB): $(DCREPORT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include $(patsubst %.o,%.d,$(DCREPORT_OBJS))
