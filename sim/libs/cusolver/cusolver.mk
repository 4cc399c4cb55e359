# cuSOLVER's dense API on the simulated GPUs (sim/libs/cusolver/):
#   $(SIM_BUILD)/libcusolver.so.12      CUDA 13's: names under libcusolver.so.12
#                                       (NVIDIA's export list and torch's
#                                       imports), prototypes from cusolverDn.h;
#                                       needs the sim's libcublas.so.13, as
#                                       NVIDIA's needs NVIDIA's (dn.c)
#   $(SIM_BUILD)/cu12/libcusolver.so.11 CUDA 12's, from the same sources
#                                       (version node libcusolver.so.11,
#                                       needing cu12/libcublas.so.12):
#                                       tests/libapi's solver12 programs
# The work is done by the host twins of solve.cu's kernels (lapack.c).
CS_SRC  := sim/libs/cusolver
CS_OBJ  := $(SIMLIB_OBJ)/cusolver
CS_HDRS := $(SIMLIB_HDRS) $(CS_SRC)/solver.h
CS_OBJS   := $(CS_OBJ)/dn.o $(CS_OBJ)/lapack.o $(CS_OBJ)/solve.image.o
CS12_OBJS := $(CS_OBJ)/dn12.o $(CS_OBJ)/lapack.o $(CS_OBJ)/solve.image.o
CS_REAL := $(CUDA_HOME)/lib64/libcusolver.so.12
CS_HEADERS := cusolverDn.h

$(CS_OBJ)/%.o: $(CS_SRC)/%.c $(CS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@
$(CS_OBJ)/dn12.o: $(CS_SRC)/dn.c $(CS_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -DSOLVER_LIB='"libcusolver.so.11"' -c $< -o $@

$(eval $(call SIMLIB_LIBRARY,CS,libcusolver.so.12,libcusolver.so.12,$(CS_REAL),$(CS_HEADERS),cusolverStatus_t,CUSOLVER_STATUS_NOT_SUPPORTED,cusolver[A-Z],$(CS_OBJS),$(SIM_BUILD)/libcublas.so.13 -lm,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,CS12,libcusolver.so.11,libcusolver.so.11,$(CS_REAL),$(CS_HEADERS),cusolverStatus_t,CUSOLVER_STATUS_NOT_SUPPORTED,cusolver[A-Z],$(CS12_OBJS),$(SIM_BUILD)/cu12/libcublas.so.12 -lm,$(SIM_BUILD)/cu12,libcusolver.so.12))

SIM_LIBS += $(CS_LIB)
ALL += $(CS12_LIB)

# Tests (sim/libs/cusolver/tests/): a C program on 2 simulated GPUs
CS_T := $(BUILD)/tests/sim/cusolver
$(CS_T)/solver_sim: $(CS_SRC)/tests/solver_sim.c sim/libs/test_check.h $(CS_LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Isim/libs -o $@ $< $(ALL_LDFLAGS) -L$(SIM_BUILD) -l:libcusolver.so.12 -L$(CUDA_HOME)/lib64 -lcudart \
	    -Wl,-rpath-link=$(SIM_BUILD) -Wl,-rpath-link=$(CUDA_HOME)/lib64 -lm
ALL   += $(CS_T)/solver_sim
TESTS += sim/libs/cusolver/tests/solver_sim.sh
# torch.linalg (the client virtualenv: no sanitizer, no cross build)
ifeq ($(SANITIZE)$(CROSS),)
TESTS += sim/libs/cusolver/tests/torch_linalg.sh
endif
