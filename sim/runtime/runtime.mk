# libcudart.so.13 rules (sim/runtime/).
