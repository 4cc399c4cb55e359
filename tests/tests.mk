# tests/ build rules: append test executables to TESTS.
