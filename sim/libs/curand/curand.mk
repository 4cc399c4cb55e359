# cuRAND's host API on the simulated GPUs (sim/libs/curand/):
#   $(SIM_BUILD)/libcurand.so.10   names under libcurand.so.10 (NVIDIA's
#                                  export list), prototypes from curand.h;
#                                  device generators fill device memory in
#                                  the host twin of rand.cu's kernel, host
#                                  generators in the call (curand.c: the
#                                  values are not NVIDIA's sequences)
CR_SRC  := sim/libs/curand
CR_OBJ  := $(SIMLIB_OBJ)/curand
CR_OBJS := $(CR_OBJ)/curand.o $(CR_OBJ)/rand.image.o

$(CR_OBJ)/curand.o: $(CR_SRC)/curand.c $(SIMLIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@

$(eval $(call SIMLIB_LIBRARY,CR,libcurand.so.10,libcurand.so.10,$(CUDA_HOME)/lib64/libcurand.so.10,curand.h,curandStatus_t,CURAND_STATUS_TYPE_ERROR,curand[A-Z],$(CR_OBJS),-lm,$(SIM_BUILD)))
SIM_LIBS += $(CR_LIB)

# Tests (sim/libs/curand/tests/): a C program on 2 simulated GPUs
CR_T := $(BUILD)/tests/sim/curand
$(CR_T)/curand_sim: $(CR_SRC)/tests/curand_sim.c sim/libs/test_check.h $(CR_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Isim/libs -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libcurand.so.10 -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lm
ALL   += $(CR_T)/curand_sim
TESTS += sim/libs/curand/tests/curand_sim.sh
