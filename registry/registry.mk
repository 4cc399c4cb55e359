# registry/ build rules.  The registry is part of the core archive
# $(DCCORE_LIB), defined in report/report.mk.
DCCORE_SRCS += registry/registry.c
