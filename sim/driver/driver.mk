# libcuda.so.1 rules (sim/driver/): the simulated CUDA driver.
#
#   $(SIM_BUILD)/libcuda.so.1   SONAME libcuda.so.1, exports cu* only, no
#                               symbol versions (like NVIDIA's)
#   $(SIM_BUILD)/libcuda.so     symlink, for -lcuda against the sim
#
# Generated at build time by sim/driver/gen_tables.py:
#   errors_table.h    CUresult names/descriptions, from cuda.h
#   procaddr_table.h  cuGetProcAddress versions, from cudaTypedefs.h, joined
#                     with the symbols the other objects define (nm)
include sim/driver/image.mk

DRV_DIR     := sim/driver
DRV_OBJDIR  := $(BUILD)/obj/sim/driver
DRV_SRCS    := $(DRV_DIR)/core.c $(DRV_DIR)/mem.c $(DRV_DIR)/launch.c $(SIM_IMAGE_SRCS)
DRV_OBJS    := $(patsubst $(DRV_DIR)/%.c,$(DRV_OBJDIR)/%.o,$(DRV_SRCS))
DRV_PROC_O  := $(DRV_OBJDIR)/procaddr.o
DRV_LIB     := $(SIM_BUILD)/libcuda.so.1
DRV_LINK    := $(SIM_BUILD)/libcuda.so
DRV_GEN     := $(DRV_DIR)/gen_tables.py
DRV_HDRS    := $(DRV_DIR)/internal.h $(DRV_DIR)/image.h

ALL += $(DRV_LIB) $(DRV_LINK)

$(DRV_OBJDIR)/errors_table.h: $(DRV_GEN) $(CUDA_INC)/cuda.h
	@mkdir -p $(@D)
	$(PYTHON) $(DRV_GEN) errors $(CUDA_INC)/cuda.h > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/defined.txt: $(DRV_OBJS)
	@mkdir -p $(@D)
	nm --defined-only $(DRV_OBJS) > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/stub_syms.txt: $(CUDA_HOME)/lib64/stubs/libcuda.so
	@mkdir -p $(@D)
	nm -D --defined-only $< > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/procaddr_table.h: $(DRV_GEN) $(CUDA_INC)/cudaTypedefs.h $(DRV_OBJDIR)/defined.txt $(DRV_OBJDIR)/stub_syms.txt
	$(PYTHON) $(DRV_GEN) procaddr $(CUDA_INC)/cudaTypedefs.h $(DRV_OBJDIR)/defined.txt $(DRV_OBJDIR)/stub_syms.txt > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/core.o: $(DRV_OBJDIR)/errors_table.h

$(DRV_OBJDIR)/%.o: $(DRV_DIR)/%.c $(DRV_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -I$(DRV_DIR) -I$(DRV_OBJDIR) -c $< -o $@

$(DRV_PROC_O): $(DRV_DIR)/procaddr.c $(DRV_OBJDIR)/procaddr_table.h $(DRV_HDRS)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -I$(DRV_DIR) -I$(DRV_OBJDIR) -c $< -o $@

$(DRV_LIB): $(DRV_OBJS) $(DRV_PROC_O) $(DRV_DIR)/libcuda.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(DRV_OBJS) $(DRV_PROC_O) -Wl,-soname,libcuda.so.1 \
	    -Wl,--version-script=$(DRV_DIR)/libcuda.map -Wl,-Bsymbolic $(ALL_LDFLAGS) \
	    $(SIM_IMAGE_LIBS) -ldl -lpthread

$(DRV_LINK): $(DRV_LIB)
	ln -sf libcuda.so.1 $@
