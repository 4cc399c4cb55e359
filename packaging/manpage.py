#!/usr/bin/env python3
"""manpage.py DEVCHECK VERSION: prints devcheck(1) in troff, made from what
`DEVCHECK --help` prints (the option table of core/base/flags.def, the one source
of DEVCHECK_OPTIONS, the command line and --help), and from
`DEVCHECK report --help` when the wrapper has that subcommand.

Nothing of the option table is written here: a flag added to core/base/flags.def
is in the next build's page.  The --help layout it reads (core/base/options.c,
dc_options_help) is, per flag:

      NAME  TYPE  default VALUE
          --cli-spelling[, --alias]
          one line of help
          values: ...

A layout it cannot read is an error (exit 1), never a page with options
missing."""
import re
import subprocess
import sys

ENTRY = re.compile(r"^  (\w+)\s+(\w+)\s+default (.*)$")


def esc(text):
    """troff-safe text: backslashes, and a leading '.' or "'"."""
    text = text.replace("\\", "\\e")
    return "\\&" + text if text[:1] in (".", "'") else text


def opt(spelling):
    return "\\fB" + esc(spelling).replace("-", "\\-") + "\\fR"


def run_help(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stdout


def parse(text):
    """(usage lines, description lines, option-intro lines, [flag dicts])."""
    lines = text.splitlines()
    usage, desc, intro, flags = [], [], [], []
    i = 0
    while i < len(lines) and lines[i].strip():
        line = lines[i].strip()
        (usage if line.startswith(("usage:", "devcheck ")) else desc).append(line)
        i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        intro.append(lines[i].strip())
        i += 1
    for j in range(i, len(lines)):
        m = ENTRY.match(lines[j])
        if not m:
            continue
        body = [l.strip() for l in lines[j + 1:j + 4]]
        if len(body) != 3 or not body[0].startswith("--") or not body[2].startswith("values: "):
            sys.exit(f"manpage.py: cannot read the --help entry of '{m.group(1)}' (line {j + 1})")
        flags.append({"key": m.group(1), "type": m.group(2), "default": m.group(3),
                      "cli": [s.strip() for s in body[0].split(",")], "help": body[1],
                      "values": body[2][len("values: "):]})
    if not usage or not flags:
        sys.exit("manpage.py: no usage line or no option in the --help output")
    return usage, desc, intro, flags


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[0])
    devcheck, version = sys.argv[1], sys.argv[2]
    rc, text = run_help([devcheck, "--help"])
    if rc != 0:
        sys.exit(f"manpage.py: '{devcheck} --help' exited {rc}")
    usage, desc, intro, flags = parse(text)
    rc, report = run_help([devcheck, "report", "--help"])
    has_report = rc == 0 and report.startswith("usage: devcheck report")

    out = [f'.TH DEVCHECK 1 "" "devcheck {esc(version)}" "User Commands"',
           ".SH NAME",
           "devcheck \\- find multi\\-GPU placement bugs in unmodified CUDA programs",
           ".SH SYNOPSIS", ".nf"]
    for u in usage:
        out.append(esc(re.sub(r"\s{3,}\(.*\)$", "", re.sub(r"^usage:\s*", "", u))))
    out += [".fi", ".SH DESCRIPTION", esc(" ".join(desc))]
    out += [".PP",
            "A finding names the kernel, the operand, both devices, where the memory was allocated "
            "and where the kernel was launched.  Findings and the closing "
            "\\fBdevcheck: SUMMARY:\\fR line go to standard error (or \\fB\\-\\-log\\-file\\fR); "
            "standard output is the program's alone."]
    out += [".SH OPTIONS", ".nf"] + [esc(l) for l in intro] + [".fi", ".PP",
            "Each option is also a \\fBDEVCHECK_OPTIONS\\fR key (below).  A boolean option takes no "
            "separate value (\\fB\\-\\-sync\\fR, \\fB\\-\\-sync=no\\fR)."]
    for f in flags:
        value = "" if f["type"] == "bool" else " \\fI" + esc(f["type"].upper()) + "\\fR"
        out += [".TP", ", ".join(opt(c) for c in f["cli"]) + value,
                esc(f["help"]) + ".",
                ".br",
                f"Key \\fB{esc(f['key'])}\\fR; values: {esc(f['values'])}; default: {esc(f['default'])}."]
    if has_report:
        out += [".SH DEVCHECK REPORT", ".nf"] + [esc(l) for l in report.rstrip("\n").splitlines()] + [".fi"]
    out += [".SH EXIT STATUS",
            "The program's own, always, unless \\fB\\-\\-error\\-exitcode\\fR \\fIN\\fR is given and errors "
            "were found in a run the program itself finished with 0.  devcheck itself exits 2 on a bad "
            "command line, 127 when the program cannot be found and 126 when it cannot be run.",
            ".SH ENVIRONMENT",
            ".TP", "\\fBDEVCHECK_OPTIONS\\fR",
            "key=value:key=value, the keys above; the command line's options come after it and win.",
            ".TP", "\\fBSIMCUDA_DEVICES\\fR",
            "the number of simulated GPUs when no NVIDIA driver is found (default 4); "
            "\\fB\\-\\-sim\\fR \\fIN\\fR sets it.",
            ".SH FILES",
            ".TP", "\\fIPREFIX\\fB/lib/devcheck/libdevcheck.so\\fR",
            "the library the program runs with (LD_PRELOAD), found relative to the devcheck executable.",
            ".TP", "\\fIPREFIX\\fB/lib/devcheck/sim/\\fR",
            "the simulated multi\\-GPU CUDA platform (libcuda.so.1, libcudart.so.13, libcupti.so.13, "
            "libnvidia\\-ml.so.1).",
            ".TP", "\\fIPREFIX\\fB/share/doc/devcheck/\\fR",
            "README.md; FORMAT.md, the reports and the JSON Lines fields; finding.schema.json.",
            ".SH SEE ALSO",
            "\\fBcompute\\-sanitizer\\fR(1), \\fBld.so\\fR(8)"]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
