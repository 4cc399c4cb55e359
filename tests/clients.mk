# Python client tests (tests/clients/, see tests/clients/README.md): real
# PyTorch, Triton, numba-cuda, cuda-bindings and cuda-core programs on the
# sim, with and without devcheck.  They need the virtualenv mk/pyenv.sh makes
# (pinned in tests/clients/requirements.txt, cached outside the clone), so
# they run only without a sanitizer, and not in a cross build (mk/cross.mk).
ifeq ($(SANITIZE)$(CROSS),)
CLIENT_T := $(BUILD)/tests/clients
$(CLIENT_T)/libclient_twins.so: tests/clients/client_twins.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS)
# pylaunch.py's CUDA library (python_frames.sh: every pyenv CPython drives it)
$(CLIENT_T)/libpylaunch.so: tests/clients/pylaunch_lib.cu
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -shared -Xcompiler -fPIC -o $@ $< -ldl
# a stand-in libtorch_python.so (raise_versions.sh: the raise hook on every CPython)
$(CLIENT_T)/fake_torch/libtorch_python.so: tests/clients/fake_torch_python.cc
	@mkdir -p $(@D)
	$(CXX) -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl
ALL   += $(CLIENT_T)/libclient_twins.so $(CLIENT_T)/libpylaunch.so $(CLIENT_T)/fake_torch/libtorch_python.so
TESTS += $(addprefix tests/clients/,pyenv.sh torch_sim.sh bindings_sim.sh triton_sim.sh ext_sim.sh \
                                    nvidia_runtime.sh devcheck_buggy.sh devcheck_correct.sh \
                                    torch_signatures.sh python_frames.sh framework_errors.sh raise_versions.sh \
                                    record_replay.sh untyped_sim.sh torch_caching.sh torch_blas.sh \
                                    hf_sim.sh hf_bugs.sh hf_triton.sh hf_temperature.sh \
                                    torch_libcalls.sh pytest_plugin.sh library_roots.sh refusal.sh conv_device.sh \
                                    stats_torch.sh jupyter_cells.sh)

# The virtualenv is made, and the C++ extension of ext_add.py built (into
# TORCH_EXTENSIONS_DIR, beside the virtualenv), before any test starts: a
# first install or build takes minutes, more than one test's time limit.
# Both run alongside the project's build and are reused afterwards.
.PHONY: pyenv
pyenv:
	@mkdir -p $(BUILD)
	@sh mk/pyenv.sh >/dev/null
	@ROOT=$(CURDIR) BUILD=$(abspath $(BUILD)) sh -c '. tests/lib.sh && need_pyenv && \
	    cd tests/clients && "$$PY" ext_add.py --build' >$(BUILD)/pyenv.log 2>&1 || \
	    { tail -n 20 $(BUILD)/pyenv.log >&2; \
	      echo "devcheck: the Python client tests cannot be prepared (log: $(BUILD)/pyenv.log)" >&2; exit 1; }
test: pyenv
endif
