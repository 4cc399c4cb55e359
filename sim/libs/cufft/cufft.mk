# cuFFT on the simulated GPUs (sim/libs/cufft/README.md):
#   $(SIM_BUILD)/libcufft.so.12       plans, work areas, streams, execution
#                                     (the kernel of fft.cu, one launch per
#                                     axis, and its host twin)
#   $(SIM_BUILD)/cu12/libcufft.so.11  the same source as CUDA 12's (soname and
#                                     version node .11; the export list is
#                                     12's): tests/libapi's CUDA 12 programs
SF_DIR  := sim/libs/cufft
SF_OBJ  := $(SIMLIB_OBJ)/cufft
SF_HDRS := $(SIMLIB_HDRS) $(SF_DIR)/fft_hd.h
SF_OBJS := $(SF_OBJ)/fft.o $(SF_OBJ)/twins.o $(SF_OBJ)/fft.image.o

$(SF_OBJ)/%.o: $(SF_DIR)/%.c $(SF_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@
$(SF_OBJ)/fft.fatbin: $(SF_DIR)/fft_hd.h

$(eval $(call SIMLIB_LIBRARY,SF,libcufft.so.12,libcufft.so.12,$(CUDA_HOME)/lib64/libcufft.so.12,cufft.h cufftXt.h,\
    cufftResult,CUFFT_NOT_SUPPORTED,cufft[A-Z],$(SF_OBJS),-lm,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,SF11,libcufft.so.11,libcufft.so.11,$(CUDA_HOME)/lib64/libcufft.so.12,cufft.h cufftXt.h,\
    cufftResult,CUFFT_NOT_SUPPORTED,cufft[A-Z],$(SF_OBJS),-lm,$(SIM_BUILD)/cu12,libcufft.so.12))

SIM_LIBS += $(SF_LIB)
ALL += $(SF11_LIB)
