# libcuda.so.1 rules (sim/driver/).
