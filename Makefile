# devcheck top-level build.  `make` builds everything into $(BUILD)/,
# `make test` runs every test, `make demo` runs the main job.
# Each part of the tree adds its own rules in a fragment (sim/sim.mk, ...)
# and appends to ALL (what `make` builds) and TESTS (what `make test` runs).

CUDA_HOME ?= /usr/local/cuda
SANITIZE  ?=
comma     := ,
include mk/arch.mk
CC        ?= gcc
ifeq ($(origin CC),default)
CC := gcc
endif
NVCC      ?= $(CUDA_HOME)/bin/nvcc
PYTHON    ?= python3

ifneq ($(CROSS),)
BUILD     ?= build-$(ARCH)
else ifeq ($(SANITIZE),)
BUILD     ?= build
else
# address,undefined: both in one build (build-address-undefined/), as CI
# runs them (.ci/run): one build and one test run instead of two.
ifeq ($(filter $(SANITIZE),address undefined thread address$(comma)undefined),)
$(error SANITIZE must be one of address, undefined, thread, address$(comma)undefined (got '$(SANITIZE)'))
endif
BUILD     ?= build-$(subst $(comma),-,$(SANITIZE))
SANFLAGS  := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
# NVCC_REUSE=build (.ci/run): nvcc's outputs take no sanitizer flag, so what
# the plain build made with the same command is copied (mk/nvcc_reuse.sh).
ifneq ($(NVCC_REUSE),)
NVCC := sh mk/nvcc_reuse.sh $(NVCC_REUSE) $(BUILD) $(NVCC)
endif
endif

CUDA_INC  := $(CUDA_HOME)/include
WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(CFLAGS) $(WARN) $(SANFLAGS) -fPIC -D_GNU_SOURCE -I$(CUDA_INC)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
# devcheck's own code (common/, core/, report/, cupti/, preload/, wrapper/): include
# root the repository, nothing exported unless marked.
DCCORE_CFLAGS = $(ALL_CFLAGS) -fvisibility=hidden -I.
# nvcc-built programs: debug info, shared cudart (so the sim or the real
# runtime is chosen at run time), exported symbols so the sim finds host twins.
NVCCFLAGS ?= -g -O1
ALL_NVCCFLAGS = $(NVCCFLAGS) -cudart shared -Xcompiler -Wall,-Wextra,-Werror,-rdynamic -Xlinker -rpath-link=$(CUDA_HOME)/lib64

ALL   :=
TESTS :=

DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all test demo clean deps gpu-check
# The dependency check (which may install packages) finishes before anything
# compiles: under -j a prerequisite list gives no order, so build-all runs
# in a sub-make started after it.
all: deps
	@$(MAKE) --no-print-directory build-all

deps: $(DEPS_STAMP)
$(DEPS_STAMP): mk/deps.sh
	@mkdir -p $(BUILD)
	@CC="$(CC)" DEB_ARCH=$(DEB_ARCH) QEMU=$(QEMU) sh mk/deps.sh $(CUDA_HOME)
	@touch $@

include sim/sim.mk
include common/common.mk
include report/report.mk
include core/core.mk
include cupti/cupti.mk
include preload/preload.mk
include replay/replay.mk
include wrapper/wrapper.mk
include packaging/packaging.mk
include samples/samples.mk
include tests/tests.mk
include bench/bench.mk
ifneq ($(CROSS),)
include mk/cross.mk
endif

.PHONY: build-all
build-all: $(ALL)

$(ALL): | $(DEPS_STAMP)

# `make test` is the CI entry point: it builds everything and runs every test;
# its last line is `N passed, N failed`.  A cross build's tests run under
# qemu-user (TEST_UNDER, mk/cross.mk).
# With TEST_JOBS > 1, the Python clients' tests (what TESTS holds without a
# sanitizer only: the house rule) share Triton's and torch's build caches:
# they run one at a time beside the others (TEST_SERIAL, tests/run.sh).
test: all
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) CUDA_HOME=$(CUDA_HOME) CC="$(CC)" CROSS=$(CROSS) \
	    TEST_SERIAL="$(if $(SANITIZE)$(CROSS),,$(if $(filter-out 1,$(or $(TEST_JOBS),1)),$(filter-out $(SANITIZED_TESTS),$(TESTS))))" \
	    $(TEST_UNDER) sh tests/run.sh $(TESTS)

# The tests a sanitizer build runs, named as in this build (TEST_SERIAL above).
SANITIZED_TESTS = $(shell env -u MAKEFLAGS -u MAKELEVEL $(MAKE) -s --no-print-directory SANITIZE=address BUILD=$(BUILD) print-tests)
.PHONY: print-tests
print-tests:
	@echo $(TESTS)

# `make demo` is devcheck's main job: the buggy samples under devcheck on the
# simulated GPUs (or real ones when a driver is present), then the fixed ones.
demo: all
	@BUILD=$(BUILD) sh demo/run.sh

# `make gpu-check`: the real-GPU battery (tests/gpu/run.sh) on a machine with
# an NVIDIA driver; one line and status 0 where there is none.  With DEVCHECK
# set (e.g. a pip-installed devcheck's native command) nothing is built.
gpu-check: $(if $(DEVCHECK),,all)
	@BUILD=$(BUILD) sh tests/gpu/run.sh

clean:
	rm -rf build build-address build-undefined build-address-undefined build-thread build-aarch64 build-ci
