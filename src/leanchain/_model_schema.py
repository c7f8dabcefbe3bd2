"""A pydantic model class's JSON schema, generated once per class.

pydantic generates the schema anew on every ``model_json_schema()`` call (about 100 µs for a
one-field model), and building an agent asks for it for every tool it binds or renders: an
app that builds its agent per request paid that on every request. A model class is done
when it is built, so its schema is remembered (`WeakMemo`: the class is not kept alive by
it) and every caller gets a copy of its own to change. A schema that cannot be generated
(a class still waiting for `model_rebuild`) raises as pydantic raises and is not remembered;
a class rebuilt with other fields after its schema was asked for keeps its first schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from leanchain.callbacks.weak import WeakMemo

__all__ = ["model_schema"]

_SCHEMAS: WeakMemo[dict[str, Any]] = WeakMemo()


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, generated once per class; a fresh copy each call."""
    kept = _SCHEMAS.get(model)
    if kept is None:
        kept = model.model_json_schema()
        _SCHEMAS.put(model, kept)
    return {key: _copy(item) for key, item in kept.items()}


def _copy(value: Any) -> Any:
    """A copy of JSON data: every dict and list new, the scalars shared."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value
