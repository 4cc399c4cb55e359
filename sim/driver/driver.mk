# libcuda.so.1 rules (sim/driver/): the simulated CUDA driver.
#
#   $(SIM_BUILD)/libcuda.so.1   SONAME libcuda.so.1, exports exactly the names
#                               of NVIDIA's libcuda (the toolkit stub), with
#                               no symbol versions
#   $(SIM_BUILD)/libcuda.so     symlink, for -lcuda against the sim
#
# Generated at build time by sim/driver/gen_tables.py:
#   errors_table.h    CUresult names/descriptions, from cuda.h
#   procaddr_table.h  cuGetProcAddress versions, from cudaTypedefs.h, joined
#                     with the symbols the other objects define (nm)
# and by sim/gen_stubs.py:
#   stubs.c           every entry point not implemented here: prints one line
#                     naming it, once, returns CUDA_ERROR_NOT_SUPPORTED
#   exports.map       the version script (anonymous version, NVIDIA's names)
# and by sim/cupti/gen_callbacks.py (CUPTI driver-domain callbacks):
#   cbwrap.c          the exported entry points that have a CUPTI callback id:
#                     params struct, ENTER, simimpl_<name>, EXIT
#   cbwrap.syms       `<name> simimpl_<name>` for objcopy --redefine-syms: the
#                     objects under impl/ are the compiled sources with those
#                     implementations (and every internal call) renamed
include sim/driver/image.mk

DRV_DIR     := sim/driver
DRV_OBJDIR  := $(BUILD)/obj/sim/driver
DRV_SRCS    := $(DRV_DIR)/core.c $(DRV_DIR)/mem.c $(DRV_DIR)/launch.c $(DRV_DIR)/graph.c \
               $(DRV_DIR)/version.c $(DRV_DIR)/logs.c $(DRV_DIR)/ipc.c $(DRV_DIR)/simdev.c \
               $(DRV_DIR)/callbacks.c $(DRV_DIR)/operands.c $(DRV_DIR)/guard.c $(DRV_DIR)/twins.c \
               $(DRV_DIR)/globals.c $(DRV_DIR)/exporttab.c $(SIM_IMAGE_SRCS)
DRV_OBJS    := $(patsubst $(DRV_DIR)/%.c,$(DRV_OBJDIR)/%.o,$(DRV_SRCS))
DRV_PROC_O  := $(DRV_OBJDIR)/procaddr.o
DRV_STUBS   := $(DRV_OBJDIR)/stubs.c
DRV_STUBS_O := $(DRV_OBJDIR)/stubs.o
DRV_MAP     := $(DRV_OBJDIR)/exports.map
DRV_LIB     := $(SIM_BUILD)/libcuda.so.1
DRV_LINK    := $(SIM_BUILD)/libcuda.so
DRV_GEN     := $(DRV_DIR)/gen_tables.py
DRV_HDRS    := $(DRV_DIR)/internal.h $(DRV_DIR)/image.h $(DRV_DIR)/ptxflow.h $(DRV_DIR)/simdev.h sim/cupti/simcb.h
DRV_CB_C    := $(DRV_OBJDIR)/cbwrap.c
DRV_CB_SYMS := $(DRV_OBJDIR)/cbwrap.syms
DRV_CB_O    := $(DRV_OBJDIR)/cbwrap.o
DRV_IMPL_OBJS := $(patsubst $(DRV_OBJDIR)/%.o,$(DRV_OBJDIR)/impl/%.o,$(DRV_OBJS))
DRV_CFLAGS   = $(ALL_CFLAGS) -fvisibility=hidden -I$(DRV_DIR) -I$(DRV_OBJDIR) -Isim/cupti

ALL += $(DRV_LIB) $(DRV_LINK)

$(DRV_OBJDIR)/errors_table.h: $(DRV_GEN) $(CUDA_INC)/cuda.h
	@mkdir -p $(@D)
	$(PYTHON) $(DRV_GEN) errors $(CUDA_INC)/cuda.h > $@.tmp && mv $@.tmp $@

$(DRV_STUBS) $(DRV_MAP): sim/gen_stubs.py $(DRV_OBJS) $(CUDA_HOME)/lib64/stubs/libcuda.so
	$(PYTHON) sim/gen_stubs.py --api driver --real $(CUDA_HOME)/lib64/stubs/libcuda.so \
	    --cuda-home $(CUDA_HOME) --cc $(CC) -o $(DRV_STUBS) --map $(DRV_MAP) $(DRV_OBJS)

$(DRV_STUBS_O): $(DRV_STUBS)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

# cuGetProcAddress hands out the stubs too, as the real driver knows every name
$(DRV_OBJDIR)/defined.txt: $(DRV_OBJS) $(DRV_STUBS_O)
	@mkdir -p $(@D)
	$(NM) --defined-only $(DRV_OBJS) $(DRV_STUBS_O) > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/stub_syms.txt: $(CUDA_HOME)/lib64/stubs/libcuda.so
	@mkdir -p $(@D)
	nm -D --defined-only $< > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/procaddr_table.h: $(DRV_GEN) $(CUDA_INC)/cudaTypedefs.h $(DRV_OBJDIR)/defined.txt $(DRV_OBJDIR)/stub_syms.txt
	$(PYTHON) $(DRV_GEN) procaddr $(CUDA_INC)/cudaTypedefs.h $(DRV_OBJDIR)/defined.txt $(DRV_OBJDIR)/stub_syms.txt > $@.tmp && mv $@.tmp $@

$(DRV_OBJDIR)/core.o: $(DRV_OBJDIR)/errors_table.h

$(DRV_OBJDIR)/%.o: $(DRV_DIR)/%.c $(DRV_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DRV_CFLAGS) -c $< -o $@

$(DRV_PROC_O): $(DRV_DIR)/procaddr.c $(DRV_OBJDIR)/procaddr_table.h $(DRV_HDRS)
	$(CC) $(DRV_CFLAGS) -c $< -o $@

$(DRV_CB_C) $(DRV_CB_SYMS) &: sim/cupti/gen_callbacks.py sim/gen_stubs.py $(DRV_OBJS)
	$(PYTHON) sim/cupti/gen_callbacks.py --api driver --cuda-home $(CUDA_HOME) --cc $(CC) \
	    -o $(DRV_CB_C) --syms $(DRV_CB_SYMS) $(DRV_OBJS)

$(DRV_CB_O): $(DRV_CB_C) $(DRV_HDRS)
	$(CC) $(DRV_CFLAGS) -c $< -o $@

$(DRV_OBJDIR)/impl/%.o: $(DRV_OBJDIR)/%.o $(DRV_CB_SYMS)
	@mkdir -p $(@D)
	$(OBJCOPY) --redefine-syms=$(DRV_CB_SYMS) $< $@

# procaddr.o is not renamed: cuGetProcAddress hands out the wrappers
$(DRV_LIB): $(DRV_IMPL_OBJS) $(DRV_CB_O) $(DRV_PROC_O) $(DRV_STUBS_O) $(DRV_MAP)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(DRV_IMPL_OBJS) $(DRV_CB_O) $(DRV_PROC_O) $(DRV_STUBS_O) -Wl,-soname,libcuda.so.1 \
	    -Wl,--version-script=$(DRV_MAP) -Wl,-Bsymbolic $(ALL_LDFLAGS) \
	    $(SIM_IMAGE_LIBS) -lstdc++ -ldl -lpthread

$(DRV_LINK): $(DRV_LIB)
	ln -sf libcuda.so.1 $@
