# cuDNN 9 on the simulated GPUs (sim/libs/cudnn/README.md):
#   $(SIM_BUILD)/libcudnn.so.9        the shim programs link (gen_shim.py): every
#                                     function forwards to its sub-library
#   $(SIM_BUILD)/libcudnn_graph.so.9  handle, backend graph API, the convolution
#                                     kernel (conv.cu) and its host twin
#   $(SIM_BUILD)/libcudnn_ops.so.9    legacy tensor and filter descriptors
#   $(SIM_BUILD)/libcudnn_cnn.so.9    legacy convolutions (through the graph API)
#   $(SIM_BUILD)/libcudnn_adv.so.9    stubs (RNN, CTC, attention: not simulated)
# Only libcudnn.so.9 is preloaded (SIM_LIBS): it loads the others beside it,
# as NVIDIA's shim loads its sub-libraries.
DNN_OBJ  := $(SIMLIB_OBJ)/cudnn
DNN_HDRS := sim/libs/cudnn/dnn.h sim/libs/cudnn/conv_hd.h sim/libs/cudnn/conv_attrs.h sim/libs/cudnn/shim.h $(SIMLIB_HDRS)

$(DNN_OBJ)/%.o: sim/libs/cudnn/%.c $(DNN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(SIMLIB_CFLAGS) -c $< -o $@

DNN_REAL  = $(CUDA_HOME)/lib64/$(1)
$(eval $(call SIMLIB_LIBRARY,DNN_GRAPH,libcudnn_graph.so.9,libcudnn_graph.so.9,$(call DNN_REAL,libcudnn_graph.so.9),\
    cudnn_graph.h,cudnnStatus_t,CUDNN_STATUS_NOT_SUPPORTED,cudnn[A-Z],\
    $(DNN_OBJ)/graph.o $(DNN_OBJ)/dnn.o $(DNN_OBJ)/twins.o $(DNN_OBJ)/conv.image.o,,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,DNN_OPS,libcudnn_ops.so.9,libcudnn_ops.so.9,$(call DNN_REAL,libcudnn_ops.so.9),\
    cudnn_ops.h,cudnnStatus_t,CUDNN_STATUS_NOT_SUPPORTED,cudnn[A-Z],$(DNN_OBJ)/ops.o $(DNN_OBJ)/dnn.o,\
    $(SIM_BUILD)/libcudnn_graph.so.9,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,DNN_CNN,libcudnn_cnn.so.9,libcudnn_cnn.so.9,$(call DNN_REAL,libcudnn_cnn.so.9),\
    cudnn_cnn.h,cudnnStatus_t,CUDNN_STATUS_NOT_SUPPORTED,cudnn[A-Z],$(DNN_OBJ)/cnn.o,\
    $(SIM_BUILD)/libcudnn_ops.so.9 $(SIM_BUILD)/libcudnn_graph.so.9,$(SIM_BUILD)))
$(eval $(call SIMLIB_LIBRARY,DNN_ADV,libcudnn_adv.so.9,libcudnn_adv.so.9,$(call DNN_REAL,libcudnn_adv.so.9),\
    cudnn_adv.h,cudnnStatus_t,CUDNN_STATUS_NOT_SUPPORTED,cudnn[A-Z],$(DNN_OBJ)/adv.o,\
    $(SIM_BUILD)/libcudnn_ops.so.9 $(SIM_BUILD)/libcudnn_graph.so.9,$(SIM_BUILD)))

# the shim: forwarders generated from the toolkit's libcudnn.so.9 and headers
DNN_SHIM_DIR := $(SIMLIB_OBJ)/libcudnn.so.9
$(DNN_SHIM_DIR)/shim_gen.c $(DNN_SHIM_DIR)/exports.map $(DNN_SHIM_DIR)/stubbed.txt &: sim/libs/cudnn/gen_shim.py \
        sim/gen_stubs.py $(call DNN_REAL,libcudnn.so.9)
	@mkdir -p $(DNN_SHIM_DIR)
	$(PYTHON) sim/libs/cudnn/gen_shim.py --real $(call DNN_REAL,libcudnn.so.9) --cuda-home $(CUDA_HOME) --cc $(CC) \
	    -o $(DNN_SHIM_DIR)/shim_gen.c --map $(DNN_SHIM_DIR)/exports.map --stubbed $(DNN_SHIM_DIR)/stubbed.txt
$(DNN_SHIM_DIR)/shim_gen.o: $(DNN_SHIM_DIR)/shim_gen.c sim/libs/cudnn/shim.h
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -Isim/libs/cudnn -c $< -o $@
$(SIM_BUILD)/libcudnn.so.9: $(DNN_SHIM_DIR)/shim_gen.o $(DNN_OBJ)/shim.o $(DNN_SHIM_DIR)/exports.map \
        | $(DNN_GRAPH_LIB) $(DNN_OPS_LIB) $(DNN_CNN_LIB) $(DNN_ADV_LIB)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(DNN_SHIM_DIR)/shim_gen.o $(DNN_OBJ)/shim.o -Wl,-soname,libcudnn.so.9 \
	    -Wl,--version-script=$(DNN_SHIM_DIR)/exports.map $(if $(SANITIZE),,-Wl,-z,defs) $(ALL_LDFLAGS) -ldl -lpthread

SIM_LIBS += $(SIM_BUILD)/libcudnn.so.9
ALL      += $(DNN_GRAPH_LIB) $(DNN_OPS_LIB) $(DNN_CNN_LIB) $(DNN_ADV_LIB)
