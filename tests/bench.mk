# The benchmark in the test suite (tests/bench/): `make bench` runs at small
# sizes, and the callgrind guard on the instructions a launch adds.  Under
# valgrind, so not with a sanitizer (its runtime cannot run under valgrind).
ifeq ($(SANITIZE),)
TESTS += tests/bench/runs.sh tests/bench/launch_instr.sh
endif
# bench/torch.sh needs the Python client environment: as tests/clients.mk's tests.
ifeq ($(SANITIZE)$(CROSS),)
TESTS += tests/bench/torch_runs.sh
endif
