"""devcheck's pytest plugin (entry point pytest11 `devcheck`), shaped like
pytest-memray's.

    pytest --devcheck [--devcheck-fail] [--devcheck-options "--sim 2"]
    devcheck -- python -m pytest ...      (the plugin turns itself on)

With --devcheck, pytest is run again under the devcheck wrapper when
libdevcheck.so is not loaded yet.  Each finding is attributed to the test
that was running when it occurred (its node id: the JSON record's "test",
the text block's "test:" line), shown in a "devcheck" section of pytest's
terminal summary whatever the capture mode, added to the test's JUnit
testcase (a property `devcheck` per finding, and a `devcheck` report
section), and with --devcheck-fail an error fails the test that caused it.

    @pytest.mark.devcheck_expected("framework_device_error")

marks a test that provokes device errors on purpose: its findings of those
kinds (of every kind when none is named) are listed as expected, never fail
it, and a marked test in which none occurred is listed (and fails under
--devcheck-fail): the error is expected, not hidden.  Such an expected
error is marked so in its JSON record ("expected": true) and
--error-exitcode does not count it.

The findings stay in the library: the plugin asks for each test's through
devcheck._findings and prints what the library wrote.
"""
import os
import shlex
import shutil
import sys

import pytest

from . import _findings

_REEXEC = "DEVCHECK_PYTEST_REEXEC"


def pytest_addoption(parser):
    g = parser.getgroup("devcheck", "devcheck: multi-GPU placement checks")
    g.addoption("--devcheck", action="store_true", default=False,
                help="check the tests with devcheck (pytest runs again under the devcheck wrapper when "
                     "libdevcheck.so is not loaded) and report each finding under the test it occurred in")
    g.addoption("--devcheck-fail", action="store_true", default=False,
                help="fail a test in which devcheck found an error (expected ones excepted)")
    g.addoption("--devcheck-options", default="",
                help="the devcheck wrapper's options when --devcheck runs pytest under it, e.g. '--sim 2'")


def _wrapper():
    try:
        from . import executable
        exe = executable()
        if os.access(exe, os.X_OK):
            return exe
    except ImportError:
        pass
    return shutil.which("devcheck")


def _reexec(config):
    exe = _wrapper()
    if not exe:
        raise pytest.UsageError("--devcheck: libdevcheck.so is not loaded and no devcheck command was found")
    capman = config.pluginmanager.getplugin("capturemanager")
    if capman is not None:
        capman.stop_global_capturing()
    sys.stdout.flush()
    sys.stderr.flush()
    env = dict(os.environ, **{_REEXEC: "1"})
    argv = [exe] + shlex.split(config.getoption("devcheck_options")) + \
        ["--", sys.executable, "-m", "pytest"] + list(config.invocation_params.args)
    os.execve(exe, argv, env)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "devcheck_expected(*kinds): the test provokes these devcheck findings on purpose (every kind "
                   "when none is named): listed as expected, never failing the test")
    if not _findings.loaded():
        if config.getoption("devcheck") and not os.environ.get(_REEXEC):
            _reexec(config)
        return
    config.pluginmanager.register(DevcheckPlugin(config), "devcheck-findings")


class DevcheckPlugin:
    def __init__(self, config):
        self.fail = config.getoption("devcheck_fail")
        self.tests = {}                 # nodeid -> {"findings": [...], "expected": kinds or None, "marked": bool}
        self.seen = {}                  # nodeid -> {fingerprint: count already attached}

    # one window per test: setup, call and teardown
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        _findings.begin(item.nodeid)
        m = item.get_closest_marker("devcheck_expected")
        self.tests[item.nodeid] = {"findings": {}, "marked": m is not None,
                                   "expected": (set(m.args) or None) if m else None}
        if m is not None:
            _findings.expect([str(k) for k in m.args])
        self.seen[item.nodeid] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        rep = outcome.get_result()
        t = self.tests.get(item.nodeid)
        if t is None:
            return
        new = []
        for f in _findings.findings():
            fp = f.get("fingerprint", "")
            before = self.seen[item.nodeid].get(fp, 0)
            if f.get("count", 1) > before:
                self.seen[item.nodeid][fp] = f.get("count", 1)
                t["findings"][fp] = f
                new.append(f)
        for f in new:
            f["expected"] = t["marked"] and (t["expected"] is None or f.get("kind") in t["expected"])
            prop = ("devcheck", ("expected: " if f["expected"] else "") + f.get("headline", ""))
            rep.user_properties.append(prop)
            item.user_properties.append(prop)
        if new:
            rep.sections.append(("devcheck", "".join(("(expected) " if f["expected"] else "") + "==devcheck== " +
                                                     f.get("report", "") for f in new)))
        errors = [f for f in new if f.get("severity") == "error" and not f["expected"]]
        if self.fail and errors and rep.passed:
            rep.outcome = "failed"
            rep.longrepr = "devcheck: %d error%s in this test:\n%s" % (
                len(errors), "" if len(errors) == 1 else "s",
                "".join("==devcheck== " + f.get("report", "") for f in errors))
        if rep.when == "teardown":
            _findings.begin(None)
        if rep.when == "call" and self.fail and t["marked"] and rep.passed and \
                not any(f["expected"] for f in t["findings"].values()):
            rep.outcome = "failed"
            rep.longrepr = "devcheck: the test is marked devcheck_expected%s and no such finding occurred" % (
                "(" + ", ".join(sorted(t["expected"])) + ")" if t["expected"] else "")

    def pytest_terminal_summary(self, terminalreporter):
        tr = terminalreporter
        found = {n: t for n, t in self.tests.items() if t["findings"]}
        missing = [n for n, t in self.tests.items()
                   if t["marked"] and not any(f["expected"] for f in t["findings"].values())]
        if not found and not missing:
            return
        tr.write_sep("=", "devcheck")
        for nodeid, t in found.items():
            fs = list(t["findings"].values())
            exp = sum(1 for f in fs if f["expected"])
            tr.write_line("%s: %d finding%s%s" % (nodeid, len(fs), "" if len(fs) == 1 else "s",
                                                  " (%d expected)" % exp if exp else ""))
            for f in fs:
                text = ("(expected) " if f["expected"] else "") + "==devcheck== " + f.get("report", "")
                for line in text.rstrip("\n").split("\n"):
                    tr.write_line("    " + line)
        for nodeid in missing:
            tr.write_line("%s: marked devcheck_expected, and no such finding occurred" % nodeid)
        errors = sum(1 for t in found.values() for f in t["findings"].values()
                     if f.get("severity") == "error" and not f["expected"])
        expected = sum(1 for t in found.values() for f in t["findings"].values() if f["expected"])
        tr.write_line("devcheck: %d test%s with findings; %d unexpected error%s, %d expected" % (
            len(found), "" if len(found) == 1 else "s", errors, "" if errors == 1 else "s", expected))
