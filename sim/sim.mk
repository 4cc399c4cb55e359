# sim/: the simulated multi-GPU CUDA platform.
#   $(BUILD)/sim/libcuda.so.1     driver   (sim/driver/, rules in sim/driver/driver.mk)
#   $(BUILD)/sim/libcudart.so.13  runtime  (sim/runtime/, rules in sim/runtime/runtime.mk)
#   $(BUILD)/sim/libcupti.so.13   CUPTI    (sim/cupti/, rules in sim/cupti/cupti.mk)
#   $(BUILD)/sim/libnvidia-ml.so.1 NVML    (sim/nvml/, rules in sim/nvml/nvml.mk)
# sim/ shares no source with devcheck (preload/, cupti/, core/, report/, wrapper/).
SIM_BUILD := $(BUILD)/sim
include sim/driver/driver.mk
include sim/runtime/runtime.mk
include sim/cupti/cupti.mk
include sim/nvml/nvml.mk
include sim/tests/tests.mk
