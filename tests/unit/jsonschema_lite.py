#!/usr/bin/env python3
"""A small JSON Schema validator (stdlib only) for the subset that
report/finding.schema.json (2020-12) and the official SARIF 2.1.0 schema
(draft-04, tests/schemas/) use: $ref (local: $defs and definitions), type,
const, enum, minimum, maximum, pattern, format (uri, uri-reference,
date-time), properties, required, additionalProperties, items, minItems,
uniqueItems, oneOf, anyOf, allOf, if/then/else.  Unknown keywords are an
error, so a schema cannot silently use something this validator ignores.

Usage: jsonschema_lite.py SCHEMA FILE...  (a file that is one JSON document
is validated whole; otherwise every line must validate: JSON Lines)
"""
import json
import re
import sys

ANNOTATIONS = {"$schema", "$id", "id", "title", "description", "$defs", "definitions", "default"}
KNOWN = ANNOTATIONS | {"$ref", "type", "const", "enum", "minimum", "maximum", "pattern",
                       "properties", "required", "additionalProperties", "items", "oneOf",
                       "anyOf", "allOf", "if", "then", "else", "minItems", "uniqueItems", "format"}

FORMATS = {
    "uri": re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$"),
    "uri-reference": re.compile(r"^[^\s]*$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"),
}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError("only local $ref supported: " + ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def errors(inst, schema, root, path="$"):
    """Yields error strings; none means valid."""
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError("unsupported schema keywords %s at %s" % (sorted(unknown), path))
    if "$ref" in schema:
        yield from errors(inst, resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](inst) for t in types):
            yield "%s: %r is not of type %s" % (path, inst, types)
            return
    if "const" in schema and inst != schema["const"]:
        yield "%s: %r != const %r" % (path, inst, schema["const"])
    if "enum" in schema and inst not in schema["enum"]:
        yield "%s: %r not in %r" % (path, inst, schema["enum"])
    if TYPES["number"](inst):
        if "minimum" in schema and inst < schema["minimum"]:
            yield "%s: %r < minimum %r" % (path, inst, schema["minimum"])
        if "maximum" in schema and inst > schema["maximum"]:
            yield "%s: %r > maximum %r" % (path, inst, schema["maximum"])
    if isinstance(inst, str) and "pattern" in schema and not re.search(schema["pattern"], inst):
        yield "%s: %r does not match %r" % (path, inst, schema["pattern"])
    if isinstance(inst, str) and "format" in schema:
        fmt = FORMATS.get(schema["format"])
        if fmt is None:
            raise ValueError("unsupported format %r at %s" % (schema["format"], path))
        if not fmt.search(inst):
            yield "%s: %r is not a %s" % (path, inst, schema["format"])
    if isinstance(inst, list):
        if len(inst) < schema.get("minItems", 0):
            yield "%s: fewer than %d items" % (path, schema["minItems"])
        if schema.get("uniqueItems"):
            seen = [json.dumps(v, sort_keys=True) for v in inst]
            if len(set(seen)) != len(seen):
                yield "%s: items are not unique" % path
    if isinstance(inst, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in inst:
                yield "%s: missing required property %r" % (path, key)
        for key, val in inst.items():
            if key in props:
                yield from errors(val, props[key], root, "%s.%s" % (path, key))
            elif schema.get("additionalProperties") is False:
                yield "%s: unexpected property %r" % (path, key)
            elif isinstance(schema.get("additionalProperties"), dict):
                yield from errors(val, schema["additionalProperties"], root, "%s.%s" % (path, key))
    if isinstance(inst, list) and "items" in schema:
        for i, val in enumerate(inst):
            yield from errors(val, schema["items"], root, "%s[%d]" % (path, i))
    if "allOf" in schema:
        for sub in schema["allOf"]:
            yield from errors(inst, sub, root, path)
    if "anyOf" in schema:
        if not any(not list(errors(inst, sub, root, path)) for sub in schema["anyOf"]):
            yield "%s: matches none of anyOf" % path
    if "oneOf" in schema:
        results = [list(errors(inst, sub, root, path)) for sub in schema["oneOf"]]
        ok = sum(1 for r in results if not r)
        if ok != 1:
            detail = "; ".join(e for r in results for e in r[:2])
            yield "%s: matches %d of oneOf (need 1): %s" % (path, ok, detail)
    if "if" in schema:
        if not list(errors(inst, schema["if"], root, path)):
            if "then" in schema:
                yield from errors(inst, schema["then"], root, path)
        elif "else" in schema:
            yield from errors(inst, schema["else"], root, path)


def validate(inst, schema):
    """Returns the list of errors (empty when valid)."""
    return list(errors(inst, schema, schema))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema = json.load(open(argv[1]))
    bad = 0
    for name in argv[2:]:
        try:
            whole = json.load(open(name))
        except ValueError:
            whole = None
        if whole is not None:
            for e in validate(whole, schema):
                print("%s: %s" % (name, e))
                bad += 1
            continue
        with open(name) as f:
            for n, line in enumerate(f, 1):
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    print("%s:%d: not JSON: %s" % (name, n, e))
                    bad += 1
                    continue
                for e in validate(rec, schema):
                    print("%s:%d: %s" % (name, n, e))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
