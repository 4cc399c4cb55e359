# Library calls checked at their API (issue 26; tests/libapi/README):
# NVIDIA's libraries under $(LA_BUILD)/lib -- the sim's own cuBLAS,
# cuBLASLt, cuFFT, cuDNN, NCCL and cuSOLVER (sim/libs/: they compute, under
# the real sonames, names and symbol versions, built from the real headers)
# -- and a buggy/correct program per library, bound by the dynamic linker
# (NAME_plt) and by dlopen(RTLD_LOCAL) + dlsym(handle) (NAME_dlopen).  C
# only: they run under every sanitizer.
# CUDA 12's libraries (hooks_lib.def's DC_LIBOLD): the sim's cuBLAS,
# cuBLASLt, cuFFT and cuSOLVER built as CUDA 12's under CUDA 12's sonames
# and versions in $(LA_BUILD)/lib12, the programs NAME12_plt / NAME12_dlopen
# bound to them, and both_prog, which loads both versions of each at once.
LA_BUILD := $(BUILD)/tests/libapi
LA_LIB   := $(LA_BUILD)/lib
LA_LIB12 := $(LA_BUILD)/lib12
LA_SIMLIBS  := libcublasLt.so.13 libcublas.so.13 libcufft.so.12 libcudnn.so.9 libcudnn_graph.so.9 libcudnn_ops.so.9 \
               libcudnn_cnn.so.9 libcudnn_adv.so.9 libnccl.so.2 libcusolver.so.12
LA_SIMLIBS12 := libcublasLt.so.12 libcublas.so.12 libcufft.so.11 libcusolver.so.11
LA_LIBS := $(addprefix $(LA_LIB)/,$(LA_SIMLIBS)) $(addprefix $(LA_LIB12)/,$(LA_SIMLIBS12))
LA_PROGS := $(foreach p,blas lt nccl fft dnn solver blas12 lt12 fft12 solver12,$(LA_BUILD)/$(p)_plt $(LA_BUILD)/$(p)_dlopen) \
            $(LA_BUILD)/both_prog
ALL += $(LA_LIBS) $(LA_PROGS)
TESTS += tests/libapi/libapi.sh tests/libapi/nccl_group.sh tests/libapi/libcov_fresh.sh tests/libapi/real_exports.sh
# report/LIBCOVERAGE.md anew: which names PyTorch and JAX import
# (sim/libs/imports.tsv) devcheck checks (mk/libcov.py; libcov_fresh.sh
# fails when it is stale)
.PHONY: libcov
libcov:
	$(PYTHON) mk/libcov.py --imports sim/libs/imports.tsv --cc $(CC) --cuda-home $(CUDA_HOME) -o report/LIBCOVERAGE.md
# the real-GPU battery's library programs (tests/gpu/lib_progs.py) against
# the stand-ins: Python (the virtualenv of tests/clients.mk), so only
# without a sanitizer and not in a cross build
ifeq ($(SANITIZE)$(CROSS),)
TESTS += tests/libapi/gpu_progs.sh tests/libapi/dnn_real.sh
endif
# callgrind counts devcheck's own calls into cuBLASLt (valgrind: not under a
# sanitizer; its programs are not built in a cross build, mk/cross.mk)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += tests/libapi/lt_calls.sh
endif
# NVIDIA's own libcudnn.so.9 (the nvidia-cudnn wheel of that virtualenv),
# loaded by path: dnn_real.sh
ALL += $(LA_BUILD)/dnn_real
$(LA_BUILD)/dnn_real: tests/libapi/dnn_real.c tests/libapi/ck.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) $(LA_CUDART) -ldl

LA_CUDART := -L$(CUDA_HOME)/lib64 -lcudart -Wl,-rpath-link=$(CUDA_HOME)/lib64

# The libraries are the sim's own (sim/libs/): linked here under their
# sonames so the programs' RUNPATH finds them, cuSOLVER its cuBLAS (it calls
# cuBLAS, as NVIDIA's does) and cuDNN's shim its sub-libraries beside it (as
# NVIDIA's: libcudnn.so.9 loads libcudnn_adv.so.9 for the RNN calls)
$(addprefix $(LA_LIB)/,$(LA_SIMLIBS)): $(LA_LIB)/%: $(SIM_BUILD)/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@
$(addprefix $(LA_LIB12)/,$(LA_SIMLIBS12)): $(LA_LIB12)/%: $(SIM_BUILD)/cu12/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@

LA_SONAME_blas := libcublas.so.13
LA_SONAME_lt   := libcublasLt.so.13
LA_SONAME_nccl := libnccl.so.2
LA_SONAME_fft  := libcufft.so.12
LA_SONAME_dnn  := libcudnn.so.9
LA_SONAME_solver := libcusolver.so.12
$(LA_BUILD)/%_plt: tests/libapi/%_prog.c tests/libapi/bind.h tests/libapi/ck.h $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB) -l:$(LA_SONAME_$*) -Wl,-rpath,'$$ORIGIN/lib' \
	    -Wl,-rpath-link=$(LA_LIB) $(LA_CUDART) -ldl
$(LA_BUILD)/%_dlopen: tests/libapi/%_prog.c tests/libapi/bind.h tests/libapi/ck.h $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -DBIND_DLOPEN -o $@ $< $(ALL_LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib' $(LA_CUDART) -ldl
# CUDA 12's: the same programs, bound to lib12's libraries (bind.h's LIBAPI_SONAME)
LA_SONAME12_blas := libcublas.so.12
LA_SONAME12_lt   := libcublasLt.so.12
LA_SONAME12_fft  := libcufft.so.11
LA_SONAME12_solver := libcusolver.so.11
$(LA_BUILD)/%12_plt: tests/libapi/%_prog.c tests/libapi/bind.h tests/libapi/ck.h $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -DLIBAPI_SONAME='"$(LA_SONAME12_$*)"' -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB12) \
	    -l:$(LA_SONAME12_$*) -Wl,-rpath,'$$ORIGIN/lib12' -Wl,-rpath-link=$(LA_LIB12) $(LA_CUDART) -ldl
$(LA_BUILD)/%12_dlopen: tests/libapi/%_prog.c tests/libapi/bind.h tests/libapi/ck.h $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -DBIND_DLOPEN -DLIBAPI_SONAME='"$(LA_SONAME12_$*)"' -o $@ $< $(ALL_LDFLAGS) \
	    -Wl,-rpath,'$$ORIGIN/lib12' $(LA_CUDART) -ldl
# which ncclAlltoAll a weak reference finds (nccl_group.sh)
ALL += $(LA_BUILD)/nccl_weak
$(LA_BUILD)/nccl_weak: tests/libapi/nccl_weak.c $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB) -Wl,--no-as-needed -l:libnccl.so.2 -Wl,--as-needed \
	    -Wl,-rpath,'$$ORIGIN/lib' -Wl,-rpath-link=$(LA_LIB) $(LA_CUDART) -ldl
$(LA_BUILD)/both_prog: tests/libapi/both_prog.c $(LA_LIBS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib:$$ORIGIN/lib12' $(LA_CUDART) -ldl
