# libnccl.so.2 (sim/libs/nccl/): NCCL on the simulated GPUs of one process.
#   $(SIM_BUILD)/libnccl.so.2   SONAME libnccl.so.2, NCCL's names unversioned
#                               (as nvidia-nccl-cu13 2.30.7's), prototypes
#                               from the toolkit's nccl.h; the collectives
#                               compute on the host, in the host twins of
#                               kernels.cu's kernels launched on each rank's
#                               device and stream (nccl.c says how)
NCCL_SIM_DIR := sim/libs/nccl
NCCL_SIM_OBJ := $(BUILD)/obj/sim/libs/nccl
NCCL_SIM_LIB := $(SIM_BUILD)/libnccl.so.2
NCCL_SIM_OBJS := $(NCCL_SIM_OBJ)/nccl.o $(NCCL_SIM_OBJ)/reduce.o $(NCCL_SIM_OBJ)/kernels.o
SIM_LIBS += $(NCCL_SIM_LIB)

$(NCCL_SIM_OBJ)/%.o: $(NCCL_SIM_DIR)/%.c $(NCCL_SIM_DIR)/simnccl.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@
$(NCCL_SIM_OBJ)/kernels.o: $(NCCL_SIM_DIR)/kernels.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -cudart shared -Xcompiler -fPIC,-fvisibility=hidden -c -o $@ $<
$(NCCL_SIM_LIB): $(NCCL_SIM_OBJS) $(NCCL_SIM_DIR)/nccl.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(NCCL_SIM_OBJS) -Wl,-soname,libnccl.so.2 -Wl,--version-script=$(NCCL_SIM_DIR)/nccl.map \
	    $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lstdc++ -lpthread -ldl -lm

# Tests (sim/libs/nccl/tests/): C programs on 2 and 4 simulated GPUs
NCCL_SIM_T := $(BUILD)/tests/sim/nccl
$(NCCL_SIM_T)/%: $(NCCL_SIM_DIR)/tests/%.c $(NCCL_SIM_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libnccl.so.2 -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lpthread
ALL   += $(NCCL_SIM_T)/nccl_coll
TESTS += sim/libs/nccl/tests/nccl_coll.sh
