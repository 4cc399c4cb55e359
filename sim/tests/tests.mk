# sim tests: include each owner's fragment.
-include sim/tests/driver_tests.mk
-include sim/tests/runtime_tests.mk
-include sim/tests/image_tests.mk
-include sim/tests/cupti_tests.mk
-include sim/tests/fidelity_tests.mk
-include sim/tests/nvml_tests.mk
-include sim/tests/ptrattr_tests.mk
-include sim/tests/libs_tests.mk
-include sim/tests/dnn_tests.mk
