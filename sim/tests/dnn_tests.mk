# The sim's cuDNN (sim/libs/cudnn/): convolutions computed on the simulated
# GPUs (dnn_conv.sh, C: every sanitizer); PyTorch's convolutions on them and
# the descriptor API against NVIDIA's real cuDNN on the CPU (Python's
# virtualenv: without a sanitizer only, tests/clients.mk's rule).
DNN_T := $(BUILD)/tests/sim
$(DNN_T)/dnn_conv: sim/tests/dnn_conv.c sim/tests/ck.h $(SIM_BUILD)/libcudnn.so.9
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libcudnn.so.9 -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lm
$(DNN_T)/dnn_diff: sim/tests/dnn_diff.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -ldl
ALL   += $(DNN_T)/dnn_conv $(DNN_T)/dnn_diff
TESTS += sim/tests/dnn_conv.sh
ifeq ($(SANITIZE)$(CROSS),)
TESTS += sim/tests/dnn_torch.sh sim/tests/dnn_diff.sh
endif
