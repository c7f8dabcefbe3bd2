"""Pydantic models that describe a runnable's input and output, built on demand."""

from __future__ import annotations

import threading
from typing import Annotated, Any
from weakref import WeakValueDictionary

from pydantic import BaseModel, ConfigDict, RootModel, WithJsonSchema, create_model
from pydantic.errors import PydanticInvalidForJsonSchema

__all__ = ["object_schema", "schema_for"]


_models: WeakValueDictionary[tuple[Any, str], type[BaseModel]] = WeakValueDictionary()
"""Models already built, by (annotation, title), for as long as each model is in use: a model
refers to its annotation, so a cache that held models would keep a user's types alive."""
_models_lock = threading.Lock()


def _schema_for(annotation: Any, title: str) -> type[BaseModel]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    key = (annotation, title)
    model = _models.get(key)
    if model is None:
        model = _root(annotation, title)
        with _models_lock:
            model = _models.setdefault(key, model)
    return model


def _root(annotation: Any, title: str) -> type[BaseModel]:
    model = _root_model(annotation, title)
    try:
        model.model_json_schema()
    except PydanticInvalidForJsonSchema:
        # A type pydantic accepts as it is (an instance check) has no JSON schema: the model
        # still validates it, and its JSON schema says any value.
        model = _root_model(Annotated[annotation, WithJsonSchema({})], title)
    return model


def _root_model(annotation: Any, title: str) -> type[BaseModel]:
    # The root's type is declared in the class body, so that the model is built once, with
    # its config: ``RootModel[annotation]`` would be built first, without
    # ``arbitrary_types_allowed``, and fail on a type pydantic cannot describe (`PromptValue`).
    namespace = {
        "__annotations__": {"root": annotation},
        "__module__": __name__,
        "model_config": ConfigDict(title=title, arbitrary_types_allowed=True),
    }
    model: type[BaseModel] = type(title, (RootModel,), namespace)
    return model


def schema_for(annotation: Any, title: str) -> type[BaseModel]:
    """A model whose JSON schema describes `annotation`, titled `title`."""
    try:
        return _schema_for(annotation, title)
    except TypeError:  # unhashable annotation
        return _root(annotation, title)


def object_schema(title: str, fields: dict[str, Any]) -> type[BaseModel]:
    """A model of an object with these fields (all required)."""
    definitions: dict[str, Any] = {name: (annotation, ...) for name, annotation in fields.items()}
    model: type[BaseModel] = create_model(
        title, __config__=ConfigDict(arbitrary_types_allowed=True), **definitions
    )
    return model
