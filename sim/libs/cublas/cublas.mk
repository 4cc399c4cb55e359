# cuBLAS and cuBLASLt on the simulated GPUs (sim/libs/cublas/README.md):
#   $(SIM_BUILD)/libcublasLt.so.13   cuBLASLt: handles, descriptors, layouts,
#                                    preferences, heuristics, cublasLtMatmul
#                                    (the GEMM engine: kernels of gemm.cu)
#   $(SIM_BUILD)/libcublas.so.13     cuBLAS: handles and the BLAS calls; its
#                                    GEMMs go through cublasLtMatmul (it needs
#                                    libcublasLt.so.13, as NVIDIA's does)
#   $(SIM_BUILD)/cu12/libcublasLt.so.12, libcublas.so.12
#                                    the same sources as CUDA 12's (sonames and
#                                    version nodes .12; the export list is
#                                    13's): tests/libapi's CUDA 12 programs
SB_DIR  := sim/libs/cublas
SB_OBJ  := $(SIMLIB_OBJ)/cublas
SB_HDRS := $(SIMLIB_HDRS) $(wildcard $(SB_DIR)/*.h)
SB_LT_OBJS   := $(SB_OBJ)/lt.o $(SB_OBJ)/gemm_twin.o $(SB_OBJ)/gemm.image.o
# the batched LU (lu.cu's kernels; their twins compute with cuSOLVER's
# reference routines, linked in: one LU for both libraries)
SB_BLAS_OBJS := $(SB_OBJ)/blas.o $(SB_OBJ)/lu_twin.o $(SB_OBJ)/lu.image.o $(SIMLIB_OBJ)/cusolver/lapack.o \
                $(SB_OBJ)/vec_twin.o $(SB_OBJ)/vec.image.o
SB_REAL := $(CUDA_HOME)/lib64

$(SB_OBJ)/%.o: $(SB_DIR)/%.c $(SB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@
$(SB_OBJ)/lu_twin.o: sim/libs/cusolver/solver.h
# axpy, scal, nrm2, ger (vec.cu's kernels, vec_twin.c's twins: vec.h)
$(SB_OBJ)/vec.fatbin: $(SB_DIR)/vec.h

$(eval $(call SIMLIB_LIBRARY,SB_LT,libcublasLt.so.13,libcublasLt.so.13,$(SB_REAL)/libcublasLt.so.13,cublasLt.h,\
    cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,cublasLt[A-Z],$(SB_LT_OBJS),-lm,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,SB_BLAS,libcublas.so.13,libcublas.so.13,$(SB_REAL)/libcublas.so.13,cublas_api.h,\
    cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,cublas[A-Z],$(SB_BLAS_OBJS),$(SIM_BUILD)/libcublasLt.so.13 -lm,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,SB_LT12,libcublasLt.so.12,libcublasLt.so.12,$(SB_REAL)/libcublasLt.so.13,cublasLt.h,\
    cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,cublasLt[A-Z],$(SB_LT_OBJS),-lm,$(SIM_BUILD)/cu12,libcublasLt.so.13))
$(eval $(call SIMLIB_LIBRARY,SB_BLAS12,libcublas.so.12,libcublas.so.12,$(SB_REAL)/libcublas.so.13,cublas_api.h,\
    cublasStatus_t,CUBLAS_STATUS_NOT_SUPPORTED,cublas[A-Z],$(SB_BLAS_OBJS),$(SIM_BUILD)/cu12/libcublasLt.so.12 -lm,\
    $(SIM_BUILD)/cu12,libcublas.so.13))

SIM_LIBS += $(SB_LT_LIB) $(SB_BLAS_LIB)
ALL += $(SB_LT12_LIB) $(SB_BLAS12_LIB)
