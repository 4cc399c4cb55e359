# report/ build rules: append targets to ALL and tests to TESTS.
