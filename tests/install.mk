# Installation tests (packaging/, issue 16): make install into a temporary
# prefix and uninstall (every build type), pip install of the clone into a
# fresh virtualenv with the wheel's tag and libraries checked (only without a
# sanitizer: the wheel packages the plain build).  Both run the installed
# devcheck with the build tree moved away.
TESTS += tests/install/prefix.sh
ifeq ($(SANITIZE),)
TESTS += tests/install/wheel.sh
endif
