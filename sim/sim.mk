# sim/: the simulated multi-GPU CUDA platform.
#   $(BUILD)/sim/libcuda.so.1     driver   (sim/driver/, rules in sim/driver/driver.mk)
#   $(BUILD)/sim/libcudart.so.13  runtime  (sim/runtime/, rules in sim/runtime/runtime.mk)
#   $(BUILD)/sim/libcupti.so.13   CUPTI    (sim/cupti/, rules in sim/cupti/cupti.mk)
#   $(BUILD)/sim/libnvidia-ml.so.1 NVML    (sim/nvml/, rules in sim/nvml/nvml.mk)
#   $(BUILD)/sim/<soname>         NVIDIA's libraries on the simulated GPUs (cuBLAS, cuDNN, ...):
#                                 one folder each, sim/libs/<name>/, whose fragment
#                                 sim/libs/<name>/<name>.mk appends what it builds to SIM_LIBS
#                                 (sim/libs/README.md; common rules in sim/libs/libs.mk)
#   $(BUILD)/sim/preload.list     their file names, one a line: what `devcheck --sim`
#                                 preloads after the sim's runtime
# sim/ shares no source with devcheck (preload/, cupti/, core/, report/, wrapper/).
SIM_BUILD := $(BUILD)/sim
include sim/driver/driver.mk
include sim/runtime/runtime.mk
include sim/cupti/cupti.mk
include sim/nvml/nvml.mk
SIM_LIBS :=
include sim/libs/libs.mk
include $(sort $(wildcard sim/libs/*/*.mk))
ALL += $(SIM_LIBS) $(SIM_BUILD)/preload.list
# rewritten only when the list changes (a FORCE rule that compares)
$(SIM_BUILD)/preload.list: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(notdir $(SIM_LIBS)) | grep . >$@.tmp || true
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
.PHONY: FORCE
FORCE:
include sim/tests/tests.mk
