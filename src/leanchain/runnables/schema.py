"""Pydantic models that describe a runnable's input and output, built on demand."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, RootModel, WithJsonSchema, create_model
from pydantic.errors import PydanticInvalidForJsonSchema

__all__ = ["object_schema", "schema_for"]


@lru_cache(maxsize=512)
def _schema_for(annotation: Any, title: str) -> type[BaseModel]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return _root(annotation, title)


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
