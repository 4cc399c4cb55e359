# The target architecture.  `make ARCH=aarch64` on an x86-64 machine
# cross-builds into build-aarch64/ with Debian's cross compiler and runs the
# tests under qemu-user (mk/cross.mk, mk/qemu.sh); ARCH defaults to this
# machine's (uname -m), a native build.  Supported: x86_64 and aarch64.
#
#   CROSS     tool prefix of the cross toolchain (empty for a native build)
#   DEB_ARCH  Debian's name of the target architecture, for its packages
#             (mk/deps.sh installs them with dpkg's multiarch: arm64 beside
#             amd64, headers and libraries under */aarch64-linux-gnu/)
#   QEMU      the emulator the tests of a cross build run under
HOST_ARCH := $(shell uname -m)
ARCH      ?= $(HOST_ARCH)
ifeq ($(filter $(ARCH),x86_64 aarch64),)
$(error ARCH must be x86_64 or aarch64 (got '$(ARCH)'))
endif
CROSS    :=
DEB_ARCH :=
QEMU     :=
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH)-$(HOST_ARCH),aarch64-x86_64)
$(error ARCH=$(ARCH) cannot be cross-built on $(HOST_ARCH) (only aarch64 on x86_64))
endif
ifneq ($(SANITIZE),)
$(error SANITIZE is for native builds; ARCH=$(ARCH) runs its tests under qemu-user, which the sanitizer runtimes do not support)
endif
CROSS    := aarch64-linux-gnu-
DEB_ARCH := arm64
QEMU     := qemu-aarch64-static
endif

# Tools: a cross build replaces make's defaults and any CC, CXX or AR from
# the environment (they compile for this machine); the command line still wins.
ifneq ($(CROSS),)
ifneq ($(filter default environment,$(origin CC)),)
CC := $(CROSS)gcc
endif
ifneq ($(filter default environment,$(origin CXX)),)
CXX := $(CROSS)g++
endif
ifneq ($(filter default environment,$(origin AR)),)
AR := $(CROSS)ar
endif
endif
OBJCOPY ?= $(CROSS)objcopy
NM      ?= $(CROSS)nm
