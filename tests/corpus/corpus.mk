# NVIDIA's cuda-samples under devcheck (tests/corpus/, see tests/corpus/README.md).
# The samples are built from the mirror of NVIDIA/cuda-samples into
# ${DEVCHECK_CACHE:-$HOME/.cache/devcheck}, outside the clone, before any test
# starts (a cold build takes minutes, more than one test's time limit; a warm
# one nothing).  Without a sanitizer only: some 70 runs of NVIDIA's programs,
# minutes more under each sanitizer, for call patterns the e2e tests already
# cover under them.  Not in a cross build (mk/cross.mk): the samples are
# nvcc's programs for this machine.
CORPUS_T := $(BUILD)/tests/corpus
CUDA_SAMPLES_MIRROR ?= /work/.mirror/NVIDIA+cuda-samples/repo
export CUDA_SAMPLES_MIRROR
ALL += $(CORPUS_T)/libcorpus_twins.so
$(CORPUS_T)/libcorpus_twins.so: tests/corpus/twins.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += tests/corpus/nvidia_samples.sh

.PHONY: corpus-samples
corpus-samples: | $(DEPS_STAMP)
	@if git --git-dir=$(CUDA_SAMPLES_MIRROR) rev-parse -q --verify HEAD >/dev/null 2>&1; then \
	    CUDA_HOME=$(CUDA_HOME) sh tests/corpus/build_samples.sh $(CUDA_SAMPLES_MIRROR) \
	        "$${DEVCHECK_CACHE:-$${HOME:-/tmp}/.cache/devcheck}" >$(BUILD)/corpus-build.log 2>&1 || \
	    { tail -n 30 $(BUILD)/corpus-build.log >&2; \
	      echo "devcheck: NVIDIA's samples did not build (log: $(BUILD)/corpus-build.log)" >&2; exit 1; }; \
	fi
test: corpus-samples
endif
