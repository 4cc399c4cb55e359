# sim/driver/image.c: the code-image reader (fatbin wrapper, fatbin, cubin,
# PTX) linked into libcuda.so.1.  driver.mk adds $(SIM_IMAGE_SRCS) to the
# library's sources and $(SIM_IMAGE_LIBS) to its link line.
SIM_IMAGE_SRCS := sim/driver/image.c sim/driver/ptxflow.c
SIM_IMAGE_LIBS := -lzstd
