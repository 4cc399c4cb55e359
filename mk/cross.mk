# A cross build (mk/arch.mk: ARCH=aarch64 on x86-64), included after every
# fragment.  Builds devcheck, the wrapper, the sim and the C tests with the
# cross compiler into build-$(ARCH)/; `make ARCH=$(ARCH) test` runs those tests
# under qemu-user (mk/qemu.sh) with the same runner, tests/run.sh.
#
# Left out: whatever nvcc links.  nvcc compiles host code only for this
# machine (the toolkit here has no aarch64 / sbsa target libraries), so the
# samples, the benchmark and the test programs written in CUDA C++ cannot be
# cross-built, and neither can the tests that run them (the e2e, output and
# bench tests among them).  Nor what needs this machine's Python: the client tests
# (an x86-64 virtualenv; tests/clients.mk leaves them out) and the Python
# frame reader's test (pyframes.sh loads the machine's libpython); nor the
# installation tests (they run make install without ARCH).  Device code
# (cubins, fatbins, PTX) is data, the same whatever the host: built here as
# usual and loaded by the C tests.
# A new test whose program nvcc links belongs in these two lists (it fails
# the cross build's `make test` with "not built" until it is).  The
# library stand-ins of tests/libapi link this machine's libcudart (and
# libcublas's an nvcc-built kernel): left out with their programs, their
# test and the bench's library calls; so is tests/preload/nvrtc_local.sh,
# whose library links this machine's libnvrtc.
CROSS_NO_BUILD := $(SAMPLE_PROGRAMS) $(BENCH_BUILD)/launches $(E2E_BUILD)/modes_prog \
    $(addprefix $(PT_BUILD)/,xdev libctor_kern.so libctor.so ctor_main fork_test launches threads \
        xdev_nodebug capture libxlocal.so nvtx liblocal_nvrtc.so) \
    $(addprefix $(CT_BUILD)/,bypass ctx_destroy peer_again late_sub fork_sub) \
    $(RT_TEST_BINS) $(RT_TEST_DIR)/rt_globals $(DRV_T)/cupti_rt \
    $(BUILD)/tests/image_parse $(OUT_PROGS) $(UNIT_DIR)/test_pyframes \
    $(LA_LIBS) $(LA_PROGS) $(BENCH_BUILD)/libcalls
# lt_descriptors.sh diffs the sim's cuBLASLt against NVIDIA's, a library of
# this machine; nccl_coll.sh's `all` mode (every collective of every op and
# type on 2 and 4 GPUs, under a second natively) ran past 150 s under
# qemu-user, past the runner's limit (its other modes pass there)
CROSS_SLOW_OR_NATIVE := sim/tests/lt_descriptors.sh sim/libs/nccl/tests/nccl_coll.sh
CROSS_NO_TEST := tests/e2e/% tests/outputs/% tests/install/% tests/bench/% demo/run.sh tests/unit/pyframes.sh \
    tests/replay/record_sim.sh tests/libapi/libapi.sh tests/libapi/nccl_group.sh \
    $(addprefix tests/preload/,ctor.sh xdev.sh bad_options.sh exitcode.sh fork.sh launches.sh threads.sh \
        debuginfod.sh capture.sh rtld_local.sh rt12.sh nvtx.sh nvrtc_local.sh) \
    $(addprefix tests/cupti/,bypass.sh holder.sh missing.sh ctx_destroy.sh peer_again.sh late_sub.sh \
        fork_sub.sh outermost.sh) \
    $(filter sim/tests/rt_%,$(TESTS)) sim/tests/drv_version.sh sim/tests/cupti_rt.sh \
    sim/tests/nvml_py.sh $(BUILD)/tests/image_parse \
    $(CROSS_SLOW_OR_NATIVE)

ALL   := $(filter-out $(CROSS_NO_BUILD),$(ALL))
TESTS := $(filter-out $(CROSS_NO_TEST),$(TESTS))

# Test programs link -lcuda against the toolkit's stub libcuda.so, which is
# this machine's: the linker skips it as incompatible and takes the sim's
# (same names, same SONAME libcuda.so.1), found first here and built first.
# So do those that link the runtime (-lcudart: the sim's libraries' tests):
# the sim's libcudart.so.13, by the development name the linker looks for.
ALL_LDFLAGS += -L$(SIM_BUILD)
CROSS_RT_LINK := $(SIM_BUILD)/libcudart.so
$(CROSS_RT_LINK): $(RT_LIB)
	ln -sf $(notdir $<) $@
$(filter-out $(SIM_BUILD)/% %.cubin %.fatbin %.ptx %.a,$(ALL)): | $(DRV_LINK) $(CROSS_RT_LINK)

# The runner under qemu-user: mk/qemu.sh makes this machine run $(ARCH)
# programs (binfmt_misc), then runs the command.
TEST_UNDER := QEMU=$(QEMU) sh mk/qemu.sh
