"""JSON-schema rewrites for provider tool definitions: inline refs, drop titles, strict mode.

Every function returns a new schema; the input is never modified (a user's dict may be shared).
"""

from __future__ import annotations

from typing import Any

__all__ = ["dereference_refs", "remove_titles", "to_strict"]

_DEF_KEYS = ("$defs", "definitions")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_LITERAL_KEYS = ("default", "enum", "const", "examples")


def _definitions(schema: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for key in _DEF_KEYS:
        found = schema.get(key)
        if isinstance(found, dict):
            defs.update(found)
    return defs


def _ref_name(ref: Any) -> str | None:
    if isinstance(ref, str):
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                return ref[len(prefix) :]
    return None


def dereference_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every local ``$ref`` replaced by the definition it points to.

    Keys next to a ``$ref`` (such as a field's ``description``) are laid over the definition.
    The ``$defs``/``definitions`` table is dropped, unless a recursive model leaves refs that
    cannot be inlined; then those refs and the table stay.
    """
    defs = _definitions(schema)
    kept_refs = False

    def resolve(node: Any, seen: frozenset[str]) -> Any:
        nonlocal kept_refs
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        if not isinstance(node, dict):
            return node
        name = _ref_name(node.get("$ref"))
        if name is not None and name in defs:
            if name in seen:
                kept_refs = True
                return dict(node)
            target = resolve(defs[name], seen | {name})
            siblings = {k: resolve(v, seen) for k, v in node.items() if k != "$ref"}
            return {**target, **siblings}
        return {k: resolve(v, seen) for k, v in node.items()}

    body = {k: v for k, v in schema.items() if k not in _DEF_KEYS}
    resolved: dict[str, Any] = resolve(body, frozenset())
    if kept_refs:
        for key in _DEF_KEYS:
            if key in schema:
                resolved[key] = schema[key]
    return resolved


def remove_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without pydantic's generated ``title`` keys, at every level.

    As in LangChain, a *property* that happens to be called ``title`` is kept. Unlike
    LangChain, titles inside ``anyOf``/``oneOf``/``allOf`` entries are removed too, and
    literal values (``default``, ``enum``, ``const``, ``examples``) are left untouched.
    """

    def strip(node: dict[str, Any], in_properties: bool) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and not (in_properties and isinstance(value, dict)):
                continue
            if key in _LITERAL_KEYS and not in_properties:
                out[key] = value
            elif isinstance(value, dict):
                out[key] = strip(value, key == "properties" and not in_properties)
            elif key in _SUBSCHEMA_LISTS and isinstance(value, list) and not in_properties:
                out[key] = [strip(v, False) if isinstance(v, dict) else v for v in value]
            else:
                out[key] = value
        return out

    return strip(schema, False)


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` in the shape OpenAI's strict mode accepts.

    Every object schema gets ``additionalProperties: false`` (unless it already says what
    extra properties may be, as a ``dict[str, X]`` does) and lists every property as required,
    recursively; ``"default": null`` is dropped, as the OpenAI SDK does for strict schemas.
    """

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "default" and value is None:
                continue
            if (key == "properties" and isinstance(value, dict)) or (
                key in _DEF_KEYS and isinstance(value, dict)
            ):
                out[key] = {name: walk(sub) for name, sub in value.items()}
            elif key in _LITERAL_KEYS:
                out[key] = value
            else:
                out[key] = walk(value)
        if out.get("type") == "object" or "properties" in out:
            if "properties" in out or "additionalProperties" not in out:
                out["additionalProperties"] = False
            if "properties" in out:
                out["required"] = list(out["properties"])
        return out

    result: dict[str, Any] = walk(schema)
    return result
