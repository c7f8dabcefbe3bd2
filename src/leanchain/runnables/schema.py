"""Pydantic models that describe a runnable's input and output, built on demand."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, RootModel, create_model

__all__ = ["object_schema", "schema_for"]


@lru_cache(maxsize=512)
def _schema_for(annotation: Any, title: str) -> type[BaseModel]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return _root(annotation, title)


def _root(annotation: Any, title: str) -> type[BaseModel]:
    model: type[BaseModel] = type(
        title,
        (RootModel[annotation],),
        {"model_config": ConfigDict(title=title, arbitrary_types_allowed=True)},
    )
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
