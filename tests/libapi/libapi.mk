# Library calls checked at their API (issue 26; tests/libapi/README):
# stand-ins for NVIDIA's libraries (the real sonames, names and symbol
# versions, built from the real headers, doing no math; cuBLAS, cuBLASLt,
# NCCL and cuSOLVER are the sim's own, which compute: sim/libs/) under
# $(LA_BUILD)/lib, and a buggy/correct program per library, bound by the
# dynamic linker (NAME_plt) and by dlopen(RTLD_LOCAL) + dlsym(handle)
# (NAME_dlopen).  C only: they run under every sanitizer.
# CUDA 12's libraries (hooks_lib.def's DC_LIBOLD): the cuBLAS, cuBLASLt and
# cuFFT stand-ins (the sim's cuBLAS built again) under CUDA 12's sonames and versions in
# $(LA_BUILD)/lib12, the programs NAME12_plt / NAME12_dlopen bound to them,
# and both_prog, which loads both versions of each at once.
LA_BUILD := $(BUILD)/tests/libapi
LA_LIB   := $(LA_BUILD)/lib
LA_LIB12 := $(LA_BUILD)/lib12
LA_STANDINS := $(LA_LIB)/libcublasLt.so.13 $(LA_LIB)/libcublas.so.13 $(LA_LIB)/libnccl.so.2 $(LA_LIB)/libcufft.so.12 \
               $(LA_LIB)/libcudnn.so.9 $(LA_LIB)/libcudnn_adv.so.9 $(LA_LIB)/libcusolver.so.12 \
               $(LA_LIB12)/libcublasLt.so.12 $(LA_LIB12)/libcublas.so.12 $(LA_LIB12)/libcufft.so.11 \
               $(LA_LIB12)/libcusolver.so.11
LA_PROGS := $(foreach p,blas lt nccl fft dnn solver blas12 lt12 fft12 solver12,$(LA_BUILD)/$(p)_plt $(LA_BUILD)/$(p)_dlopen) \
            $(LA_BUILD)/both_prog
ALL += $(LA_STANDINS) $(LA_PROGS)
TESTS += tests/libapi/libapi.sh tests/libapi/nccl_group.sh
# the real-GPU battery's library programs (tests/gpu/lib_progs.py) against
# the stand-ins: Python (the virtualenv of tests/clients.mk), so only
# without a sanitizer and not in a cross build
ifeq ($(SANITIZE)$(CROSS),)
TESTS += tests/libapi/gpu_progs.sh tests/libapi/dnn_real.sh
endif
# callgrind counts devcheck's own calls into cuBLASLt (valgrind: not under a sanitizer)
ifeq ($(SANITIZE),)
TESTS += tests/libapi/lt_calls.sh
endif
# NVIDIA's own libcudnn.so.9 (the nvidia-cudnn wheel of that virtualenv),
# loaded by path: dnn_real.sh
ALL += $(LA_BUILD)/dnn_real
$(LA_BUILD)/dnn_real: tests/libapi/dnn_real.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) $(LA_CUDART) -ldl

LA_CUDART := -L$(CUDA_HOME)/lib64 -lcudart -Wl,-rpath-link=$(CUDA_HOME)/lib64
LA_SOFLAGS = $(ALL_CFLAGS) -Wno-unused-parameter -shared

# version scripts: every symbol of the library under its version node, as NVIDIA's
$(LA_BUILD)/%.map:
	@mkdir -p $(@D)
	printf '%s { global: %s*; local: *; };\n' $(word 1,$(subst :, ,$(LA_NODE_$*))) $(word 2,$(subst :, ,$(LA_NODE_$*))) >$@
LA_NODE_cufft    := libcufft.so.12:cufft
LA_NODE_cudnn    := libcudnn.so.9:cudnn
LA_NODE_cudnn_adv := libcudnn_adv.so.9:cudnn
LA_NODE_cufft12    := libcufft.so.11:cufft

# cuBLAS and cuBLASLt are the sim's own (sim/libs/cublas/): the libraries
# that compute, linked here under their sonames so the programs' RUNPATH and
# the other stand-ins (cuSOLVER calls cuBLAS) find them
$(LA_LIB)/libcublasLt.so.13 $(LA_LIB)/libcublas.so.13: $(LA_LIB)/%: $(SIM_BUILD)/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@
$(LA_LIB12)/libcublasLt.so.12 $(LA_LIB12)/libcublas.so.12: $(LA_LIB12)/%: $(SIM_BUILD)/cu12/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@
# so are NCCL (sim/libs/nccl/) and cuSOLVER (sim/libs/cusolver/: it calls
# cuBLAS, as NVIDIA's does)
$(LA_LIB)/libnccl.so.2 $(LA_LIB)/libcusolver.so.12: $(LA_LIB)/%: $(SIM_BUILD)/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@
$(LA_LIB12)/libcusolver.so.11: $(LA_LIB12)/%: $(SIM_BUILD)/cu12/%
	@mkdir -p $(@D)
	ln -sf $(abspath $<) $@

$(LA_LIB)/libcufft.so.12: tests/libapi/standin_cufft.c $(LA_BUILD)/cufft.map
	@mkdir -p $(@D)
	$(CC) $(LA_SOFLAGS) -Wl,-soname,libcufft.so.12 -Wl,--version-script=$(LA_BUILD)/cufft.map -o $@ $< $(ALL_LDFLAGS)

$(LA_LIB12)/libcufft.so.11: tests/libapi/standin_cufft.c $(LA_BUILD)/cufft12.map
	@mkdir -p $(@D)
	$(CC) $(LA_SOFLAGS) -Wl,-soname,libcufft.so.11 -Wl,--version-script=$(LA_BUILD)/cufft12.map -o $@ $< $(ALL_LDFLAGS)

$(LA_LIB)/libcudnn.so.9: tests/libapi/standin_cudnn.c $(LA_BUILD)/cudnn.map
	@mkdir -p $(@D)
	$(CC) $(LA_SOFLAGS) -Wl,-soname,libcudnn.so.9 -Wl,--version-script=$(LA_BUILD)/cudnn.map -o $@ $< $(ALL_LDFLAGS) \
	    -ldl
# cuDNN 9's RNN calls: libcudnn.so.9 dlopens this one (not linked)
$(LA_LIB)/libcudnn_adv.so.9: tests/libapi/standin_cudnn_adv.c $(LA_BUILD)/cudnn_adv.map
	@mkdir -p $(@D)
	$(CC) $(LA_SOFLAGS) -Wl,-soname,libcudnn_adv.so.9 -Wl,--version-script=$(LA_BUILD)/cudnn_adv.map -o $@ $< \
	    $(ALL_LDFLAGS)

LA_SONAME_blas := libcublas.so.13
LA_SONAME_lt   := libcublasLt.so.13
LA_SONAME_nccl := libnccl.so.2
LA_SONAME_fft  := libcufft.so.12
LA_SONAME_dnn  := libcudnn.so.9
LA_SONAME_solver := libcusolver.so.12
$(LA_BUILD)/%_plt: tests/libapi/%_prog.c tests/libapi/bind.h $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB) -l:$(LA_SONAME_$*) -Wl,-rpath,'$$ORIGIN/lib' \
	    -Wl,-rpath-link=$(LA_LIB) $(LA_CUDART) -ldl
$(LA_BUILD)/%_dlopen: tests/libapi/%_prog.c tests/libapi/bind.h $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -DBIND_DLOPEN -o $@ $< $(ALL_LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib' $(LA_CUDART) -ldl
# CUDA 12's: the same programs, bound to lib12's libraries (bind.h's LIBAPI_SONAME)
LA_SONAME12_blas := libcublas.so.12
LA_SONAME12_lt   := libcublasLt.so.12
LA_SONAME12_fft  := libcufft.so.11
LA_SONAME12_solver := libcusolver.so.11
$(LA_BUILD)/%12_plt: tests/libapi/%_prog.c tests/libapi/bind.h $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -DLIBAPI_SONAME='"$(LA_SONAME12_$*)"' -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB12) \
	    -l:$(LA_SONAME12_$*) -Wl,-rpath,'$$ORIGIN/lib12' -Wl,-rpath-link=$(LA_LIB12) $(LA_CUDART) -ldl
$(LA_BUILD)/%12_dlopen: tests/libapi/%_prog.c tests/libapi/bind.h $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -DBIND_DLOPEN -DLIBAPI_SONAME='"$(LA_SONAME12_$*)"' -o $@ $< $(ALL_LDFLAGS) \
	    -Wl,-rpath,'$$ORIGIN/lib12' $(LA_CUDART) -ldl
# which ncclAlltoAll a weak reference finds (nccl_group.sh)
ALL += $(LA_BUILD)/nccl_weak
$(LA_BUILD)/nccl_weak: tests/libapi/nccl_weak.c $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(LA_LIB) -Wl,--no-as-needed -l:libnccl.so.2 -Wl,--as-needed \
	    -Wl,-rpath,'$$ORIGIN/lib' -Wl,-rpath-link=$(LA_LIB) $(LA_CUDART) -ldl
$(LA_BUILD)/both_prog: tests/libapi/both_prog.c $(LA_STANDINS)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib:$$ORIGIN/lib12' $(LA_CUDART) -ldl
