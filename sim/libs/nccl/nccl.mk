# libnccl.so.2 (sim/libs/nccl/): NCCL on the simulated GPUs of one process.
#   $(SIM_BUILD)/libnccl.so.2   SONAME libnccl.so.2, NCCL's names unversioned
#                               (NVIDIA's export list: the toolkit's NCCL 2.28,
#                               plus what torch imports from nvidia-nccl-cu13
#                               2.30.7, sim/libs/imports.tsv), prototypes from
#                               the toolkit's nccl.h; the collectives compute
#                               in the host twins of coll.cu's kernels,
#                               launched on each rank's device and stream
#                               (nccl.c says how); the rest answer
#                               ncclInvalidUsage with one line naming them
NCCL_SRC  := sim/libs/nccl
NCCL_SIM_OBJ  := $(SIMLIB_OBJ)/nccl
NCCL_SIM_OBJS := $(NCCL_SIM_OBJ)/nccl.o $(NCCL_SIM_OBJ)/reduce.o $(NCCL_SIM_OBJ)/coll.image.o

$(NCCL_SIM_OBJ)/%.o: $(NCCL_SRC)/%.c $(NCCL_SRC)/simnccl.h $(SIMLIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@

$(eval $(call SIMLIB_LIBRARY,NCCL_SIM,libnccl.so.2,,$(CUDA_HOME)/lib64/libnccl.so.2,nccl.h,ncclResult_t,ncclInvalidUsage,\
    p?nccl[A-Z],$(NCCL_SIM_OBJS),-lm,$(SIM_BUILD)))
SIM_LIBS += $(NCCL_SIM_LIB)

# Tests (sim/libs/nccl/tests/): C programs on 2 and 4 simulated GPUs
NCCL_SIM_T := $(BUILD)/tests/sim/nccl
$(NCCL_SIM_T)/nccl_coll: $(NCCL_SRC)/tests/nccl_coll.c sim/libs/test_check.h $(NCCL_SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Isim/libs -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libnccl.so.2 -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lpthread
# an NVTX injection library counting the NCCL domain's ranges (nccl_nvtx.sh)
$(NCCL_SIM_T)/libnvtx_count.so: $(NCCL_SRC)/tests/nvtx_count.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< $(ALL_LDFLAGS) -lpthread
ALL   += $(NCCL_SIM_T)/nccl_coll $(NCCL_SIM_T)/libnvtx_count.so
TESTS += sim/libs/nccl/tests/nccl_coll.sh sim/libs/nccl/tests/nccl_nvtx.sh
# PyTorch's ProcessGroupNCCL (the client virtualenv: no sanitizer, no cross build)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += sim/libs/nccl/tests/torch_pg.sh
endif
