"""A JSON Schema compiled into plain Python checks: is an instance valid, yes or no.

Speed trick, isolated: jsonschema walks the schema for every instance (a CSL-JSON item of a
new shape cost about 1 ms, a sixth of converting TeX Live's `.bib` files, docs/convert.md);
`compile_schema` walks it once and gives a function of nested closures, one per keyword,
that answers in a few microseconds. It says only valid or not: whoever gets False asks
jsonschema for its message. It knows the draft-07 keywords the official CSL-JSON schema
uses (`type`, `enum`, `properties`, `required`, `additionalProperties`, `items`,
`minItems`, `maxItems`, `anyOf`, local `$ref`s) and refuses a schema with any other, so a
new schema version cannot be checked wrongly in silence. The oracle is jsonschema's
Draft7Validator, in a hypothesis test over generated items (tests/writers/test_schemacheck.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "examples", "definitions"})
_KEYWORDS = frozenset(
    {"type", "enum", "properties", "required", "additionalProperties", "items"}
    | {"minItems", "maxItems", "anyOf", "$ref"}
)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    "number": _is_number,
}
"""The draft-07 types the schema uses, as jsonschema's type checker tells them apart (a
bool is not a number)."""


def compile_schema(schema: dict[str, Any]) -> Check:
    """The function that says whether an instance is valid under `schema` (draft-07, its
    `$ref`s pointing into its own `definitions`); ValueError for a keyword it does not know."""
    definitions: dict[str, Any] = schema.get("definitions", {})
    compiled: dict[str, Check] = {}

    def reference(ref: str) -> Check:
        prefix = "#/definitions/"
        if not ref.startswith(prefix) or ref[len(prefix) :] not in definitions:
            raise ValueError(f"unsupported $ref: {ref}")
        name = ref[len(prefix) :]
        if name not in compiled:
            compiled[name] = _never  # a schema that refers to itself is not supported
            compiled[name] = build(definitions[name])
        if compiled[name] is _never:
            raise ValueError(f"recursive $ref: {ref}")
        return compiled[name]

    def build(node: dict[str, Any]) -> Check:
        unknown = node.keys() - _KEYWORDS - _ANNOTATIONS
        if unknown:
            raise ValueError(f"unsupported schema keywords: {sorted(unknown)}")
        if "$ref" in node:  # in draft 7 a `$ref` overrides the keywords beside it
            return reference(node["$ref"])
        checks = [
            *_type_checks(node),
            *_object_checks(node, build),
            *_array_checks(node, build),
        ]
        if "anyOf" in node:
            options = [build(option) for option in node["anyOf"]]
            if len(options) == 1:
                checks.append(options[0])
            else:
                checks.append(lambda value: any(option(value) for option in options))
        return _all(checks)

    return build(schema)


def _never(value: Any) -> bool:
    return False


def _all(checks: list[Check]) -> Check:
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


def _type_checks(node: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "type" in node:
        names = [node["type"]] if isinstance(node["type"], str) else list(node["type"])
        if not _TYPES.keys() >= set(names):
            raise ValueError(f"unsupported types: {sorted(set(names) - _TYPES.keys())}")
        kinds = [_TYPES[name] for name in names]
        if len(kinds) == 1:
            checks.append(kinds[0])
        else:
            checks.append(lambda value: any(kind(value) for kind in kinds))
    if "enum" in node:
        if not all(isinstance(option, str) for option in node["enum"]):
            raise ValueError("only enums of strings are supported")
        options = frozenset(node["enum"])
        checks.append(lambda value: isinstance(value, str) and value in options)
    return checks


def _object_checks(node: dict[str, Any], build: Callable[[dict[str, Any]], Check]) -> list[Check]:
    """`properties`, `required` and `additionalProperties` (true, false or a schema), which
    constrain objects only. A property that only names its types (most of them) is checked
    inline with one isinstance, not through its closure."""
    if not node.keys() & {"properties", "required", "additionalProperties"}:
        return []
    subschemas: dict[str, dict[str, Any]] = node.get("properties", {})
    simple = {name: _python_types(sub) for name, sub in subschemas.items()}
    simple = {name: kinds for name, kinds in simple.items() if kinds is not None}
    properties = {name: build(sub) for name, sub in subschemas.items() if name not in simple}
    required = tuple(node.get("required", ()))
    extra = node.get("additionalProperties", True)
    other: Check | None = None if extra is True else _never if extra is False else build(extra)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        for name, member in value.items():
            kinds = simple.get(name) if isinstance(name, str) else None
            if kinds is not None:
                if not isinstance(member, kinds[0]) or (kinds[1] and isinstance(member, bool)):
                    return False
                continue
            known = properties.get(name) if isinstance(name, str) else None
            if known is not None:
                if not known(member):
                    return False
            elif other is not None and not other(member):
                return False
        return True

    return [check]


_PYTHON_TYPES = {"string": (str,), "boolean": (bool,), "number": (int, float)}


def _python_types(node: dict[str, Any]) -> tuple[tuple[type, ...], bool] | None:
    """For a schema that is only `type` of scalars: the Python types it admits and whether a
    bool must still be refused (a bool is an int, not a JSON number); else None."""
    if node.keys() - _ANNOTATIONS != {"type"}:
        return None
    names = [node["type"]] if isinstance(node["type"], str) else list(node["type"])
    if not _PYTHON_TYPES.keys() >= set(names):
        return None
    kinds = tuple(kind for name in names for kind in _PYTHON_TYPES[name])
    return kinds, "number" in names and "boolean" not in names


def _array_checks(node: dict[str, Any], build: Callable[[dict[str, Any]], Check]) -> list[Check]:
    """`items` (one schema for every member), `minItems` and `maxItems`, which constrain
    arrays only."""
    if not node.keys() & {"items", "minItems", "maxItems"}:
        return []
    items = node.get("items")
    if items is not None and not isinstance(items, dict):
        raise ValueError("only one `items` schema for all members is supported")
    member = None if items is None else build(items)
    least, most = node.get("minItems", 0), node.get("maxItems")

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        if len(value) < least or (most is not None and len(value) > most):
            return False
        return member is None or all(member(one) for one in value)

    return [check]
