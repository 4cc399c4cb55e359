# core/ build rules.  The core is part of the archive $(DCCORE_LIB),
# defined in report/report.mk.
DCCORE_SRCS += core/registry.c core/check.c core/options.c
