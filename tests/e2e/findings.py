#!/usr/bin/env python3
"""Canonical summary of a devcheck JSON Lines report, for the end-to-end tests.

Usage: findings.py [--schema SCHEMA] [--program NAME] [--alloc] [--path PATH] REPORT.jsonl

Reads the report (one JSON object a line: finding objects, possibly repeated
with the same id and a larger count -- the last line per id wins -- then one
summary object) and prints one line per unique finding, sorted:

    KIND severity=S kernel=K api=A param=P launch=D owner=O memory=M count=N at=FILE:LINE

then one line for the summary:

    summary errors=E warnings=W launches=L unchecked=U

A finding whose action is not "reported" (mode=migrate) ends with
` action=migrated` or ` action=not_migrated reason="..."`; an async_error
(sync=1) with ` error=NAME operands=P:O,P:O` (param:owner of each operand of
the launch); the summary line ends with ` migrated=BYTES` when bytes_migrated
is not 0.

KIND, severity and memory are as in the report; kernel is the kernel's
unqualified name (`concat` for `concat(float const*, ...)` or its mangled
form); api is the launching entry point (launch.api); param, owner and memory are `-` when the finding has no operand (or
the operand has no owner device; a pointer_refused's owner is its owner_device); at= is the innermost launch-stack frame that
belongs to the program (module named NAME when --program is given, else any
frame with a source line): file base name and line, or `-` when none.  With
--alloc each finding line ends with ` alloc=FILE:LINE`, the same for the
allocation stack (where the operand's memory was allocated).  With --path
PATH (interpose or cupti) the report must say that every finding was
detected by PATH (detected_by) and that every launch counted in the summary
was seen by it (launches_PATH = launches_checked + launches_unchecked).

With --schema SCHEMA the report is first validated against the JSON Schema
as tests/unit/jsonschema_lite.py SCHEMA REPORT does, its errors on stderr.

Exit status: 0; 2 when the report is malformed (a line that is not a JSON
object, a finding without its required fields, no summary object or lines
after it, an unknown action) -- the error on stderr; 3 when --path does
not hold; 4 when the report does not follow --schema.
"""
import json
import os
import re
import sys

REQUIRED = ("id", "kind", "severity", "kernel", "launch", "action", "count", "launch_stack")
ACTIONS = ("reported", "migrated", "not_migrated")


class Malformed(Exception):
    pass


class WrongPath(Exception):
    pass


def check_path(lines, path):
    """Every finding detected_by `path`; every launch counted by `path`."""
    summary = None
    for text in lines:
        if not text.strip():
            continue
        obj = json.loads(text)
        if obj.get("type") == "finding" and obj.get("detected_by") != path:
            raise WrongPath("finding %s detected by %r, not %r" % (obj.get("id"), obj.get("detected_by"), path))
        if obj.get("type") == "summary":
            summary = obj
    total = summary.get("launches_checked", 0) + summary.get("launches_unchecked", 0)
    seen = summary.get("launches_" + path)
    if seen != total:
        raise WrongPath("%s of %s launches seen by %s (summary: %s)" % (seen, total, path, json.dumps(summary)))


def base_kernel_name(name):
    """`ns::concat(float const*, ...)`, `_ZN2ns6concatEPKf`, `concat` -> `concat`."""
    if not isinstance(name, str) or not name:
        return "-"
    m = re.match(r"_Z(N?)(.*)", name)
    if m:  # Itanium mangling: a nested name is a list of <len><id>; take the last
        rest, last = m.group(2), None
        while True:
            part = re.match(r"(\d+)", rest)
            if not part:
                break
            n = int(part.group(1))
            last = rest[len(part.group(1)):len(part.group(1)) + n]
            rest = rest[len(part.group(1)) + n:]
            if not m.group(1):
                break
        return last or name
    name = name.split("(", 1)[0]
    name = re.sub(r"<.*>$", "", name)
    name = name.rsplit("::", 1)[-1].strip()
    return name.split()[-1] if name else "-"  # drop a template's return type


def program_frame(stack, program):
    for frame in stack or []:
        if not isinstance(frame, dict):
            continue
        module = frame.get("module") or ""
        if program and os.path.basename(str(module).split("+")[0]) != program:
            continue
        if frame.get("file") and frame.get("line"):
            return "%s:%s" % (os.path.basename(frame["file"]), frame["line"])
    return "-"


def field(obj, key):
    value = obj.get(key) if isinstance(obj, dict) else None
    return "-" if value is None else str(value)


def extras(f):
    """The action when not "reported", and an async_error's error and operands."""
    out = ""
    if f["action"] != "reported":
        out += " action=%s" % f["action"]
        reason = (f.get("migration") or {}).get("reason")
        if reason:
            out += " reason=%s" % json.dumps(reason)
    if f["kind"] == "async_error":
        out += " error=%s operands=%s" % (f.get("error"), ",".join(
            "%s:%s" % (field(o, "param"), field(o, "owner_device")) for o in f.get("operands") or []) or "-")
    return out


def summarize(lines, program, alloc=False):
    findings, summary = {}, None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError as e:
            raise Malformed("line %d: not JSON: %s" % (number, e))
        if not isinstance(obj, dict):
            raise Malformed("line %d: not a JSON object" % number)
        if summary is not None:
            raise Malformed("line %d: a line after the summary object" % number)
        kind = obj.get("type")
        if kind == "summary":
            summary = obj
        elif kind == "finding":
            missing = [k for k in REQUIRED if k not in obj]
            if missing:
                raise Malformed("line %d: finding without %s" % (number, ", ".join(missing)))
            if obj["action"] not in ACTIONS:
                raise Malformed("line %d: unknown action %r" % (number, obj["action"]))
            findings[obj["id"]] = obj  # the last line per id wins
        else:
            raise Malformed("line %d: unknown type %r" % (number, kind))
    if summary is None:
        raise Malformed("no summary object")
    out = []
    for f in findings.values():
        op = f.get("operand") or {}
        out.append("%s severity=%s kernel=%s api=%s param=%s launch=%s owner=%s memory=%s count=%s at=%s" % (
            f["kind"], f["severity"], base_kernel_name(f["kernel"]), field(f["launch"], "api"),
            field(op, "param"),
            field(f["launch"], "device"), field(op if op else f, "owner_device"), field(op, "memory"),
            f["count"], program_frame(f["launch_stack"], program))
            + (" alloc=%s" % program_frame(f.get("alloc_stack"), program) if alloc else "")
            + extras(f))
    out.sort()
    out.append("summary errors=%s warnings=%s launches=%s unchecked=%s" % (
        field(summary, "errors"), field(summary, "warnings"),
        field(summary, "launches_checked"), field(summary, "launches_unchecked"))
        + (" migrated=%s" % summary["bytes_migrated"] if summary.get("bytes_migrated") else ""))
    return out


def schema_errors(schema, report):
    """tests/unit/jsonschema_lite.py SCHEMA REPORT in this process (one Python
    start fewer per report): its messages on stderr; True when any."""
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit"))
    import jsonschema_lite
    stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        return jsonschema_lite.main(["jsonschema_lite.py", schema, report]) != 0
    except Exception as e:      # the validator's own failure fails the check too
        sys.stderr.write("jsonschema_lite: %s: %r\n" % (report, e))
        return True
    finally:
        sys.stdout = stdout


def main(argv):
    program, alloc, path, schema = None, False, None, None
    args = argv[1:]
    while args and args[0].startswith("--"):
        if args[0] == "--program" and len(args) >= 2:
            program, args = args[1], args[2:]
        elif args[0] == "--schema" and len(args) >= 2:
            schema, args = args[1], args[2:]
        elif args[0] == "--alloc":
            alloc, args = True, args[1:]
        elif args[0] == "--path" and len(args) >= 2:
            path, args = args[1], args[2:]
        else:
            break
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    if schema and schema_errors(schema, args[0]):
        return 4
    try:
        with open(args[0], encoding="utf-8") as f:
            lines = f.read().splitlines()
        for line in summarize(lines, program, alloc):
            print(line)
        if path:
            check_path(lines, path)
    except (OSError, Malformed) as e:
        sys.stderr.write("findings.py: %s: %s\n" % (args[0], e))
        return 2
    except WrongPath as e:
        sys.stderr.write("findings.py: %s: %s\n" % (args[0], e))
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
