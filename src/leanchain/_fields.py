"""Declarative fields: the LangChain way of writing a subclass, on plain classes.

LangChain's classes are pydantic models, so its users write their own chat models, tools,
parsers, retrievers and handlers as annotated fields with defaults::

    class EchoModel(BaseChatModel):
        model_name: str = "echo"
        api_key: SecretStr = Field(default=SecretStr(""))

and build them with keywords. leanchain's classes stay plain classes (a runnable is called on
the hot path; a pydantic model per instance would cost on every construction and copy): the
annotations of a class are read once, the first time it is built, into a small table of
fields, and `init_fields` assigns keywords to them. An unknown keyword is a `TypeError` naming
it and the accepted ones; a missing required field names what is missing; ``str`` given to a
`SecretStr` field becomes one, so it stays masked in a repr. A class that wants its values
validated by pydantic sets ``validate_fields = True`` (a `TypeAdapter` per field, built once).
"""

from __future__ import annotations

import copy
import sys
import threading
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from leanchain.callbacks.weak import WeakMemo

if typing.TYPE_CHECKING:
    from pydantic import TypeAdapter

# pydantic is imported only when a class needs it: this module is imported with the callback
# base class (the core), and importing pydantic costs more than the rest of the core. A class
# attribute can be a ``Field(...)``, or an annotation ``SecretStr``, only once the user's code
# has imported pydantic, so the checks look for it in ``sys.modules``.


def _pydantic_attr(module: str, name: str) -> Any:
    """``module.name`` if pydantic's `module` is imported already, else ``None``."""
    found = sys.modules.get(module)
    return None if found is None else getattr(found, name)


__all__ = ["FieldSpec", "declared_fields", "fields_repr", "init_fields"]

_MISSING: Any = object()
_MUTABLE = (list, dict, set)
_lock = threading.Lock()
_tables: WeakMemo[dict[type, dict[str, FieldSpec]]] = WeakMemo()
"""Each class's declared fields, by the base they are read below; held weakly, so that a
class made per request (a handler, a tool) is not kept alive by having been read."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One declared field of a class."""

    name: str
    default: Any
    """The default value (`_MISSING` when there is none)."""
    factory: Callable[[], Any] | None
    """Makes the default (``Field(default_factory=...)``)."""
    secret: bool
    """The field's type is `SecretStr` (a str given for it is wrapped)."""
    adapter: TypeAdapter[Any] | None
    """Validates a value (only for a class that sets ``validate_fields``)."""

    @property
    def required(self) -> bool:
        """No default and no factory: the keyword must be given."""
        return self.default is _MISSING and self.factory is None


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(("ClassVar", "typing.ClassVar", "t.ClassVar"))
    return annotation is ClassVar or typing.get_origin(annotation) is ClassVar


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # names only importable under TYPE_CHECKING: keep the raw annotations
        found: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            found.update(getattr(klass, "__annotations__", {}))
        return found


def _is_secret(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return "SecretStr" in annotation
    secret = _pydantic_attr("pydantic.types", "SecretStr")
    return secret is not None and (annotation is secret or secret in typing.get_args(annotation))


def _read(cls: type, base: type) -> dict[str, FieldSpec]:
    """The fields that `cls` and its ancestors below `base` declare."""
    hints: dict[str, Any] | None = None
    validate = bool(getattr(cls, "validate_fields", False))
    table: dict[str, FieldSpec] = {}
    for klass in reversed(cls.__mro__):
        # leanchain's own classes take their settings in their own constructors.
        if not issubclass(klass, base) or klass.__module__.startswith("leanchain."):
            continue
        for name, raw in vars(klass).get("__annotations__", {}).items():
            if name.startswith("_") or _is_class_var(raw):
                continue
            if hints is None:
                hints = _hints(cls)
            annotation = hints.get(name, raw)
            if _is_class_var(annotation):
                continue
            default, factory = _default_of(cls, name)
            adapter = None
            if validate and not isinstance(annotation, str):
                from pydantic import TypeAdapter

                adapter = TypeAdapter(annotation)
            table[name] = FieldSpec(name, default, factory, _is_secret(annotation), adapter)
    return table


def _default_of(cls: type, name: str) -> tuple[Any, Callable[[], Any] | None]:
    """The default of field `name`, unwrapping a pydantic ``Field(...)`` on the class."""
    field_info = _pydantic_attr("pydantic.fields", "FieldInfo")
    for klass in cls.__mro__:
        if name not in vars(klass):
            continue
        value = vars(klass)[name]
        if field_info is not None and isinstance(value, field_info):
            from pydantic_core import PydanticUndefined

            if value.default_factory is not None:
                return _MISSING, value.default_factory
            if value.default is PydanticUndefined:
                return _MISSING, None
            return value.default, None
        return value, None
    return _MISSING, None


def _unwrap_class_fields(cls: type, table: dict[str, FieldSpec]) -> None:
    """Class attributes that were ``Field(default=...)`` read as their plain defaults afterwards.

    A ``Field(default_factory=...)`` stays on the class, so that subclasses read it too; every
    instance has its own value.
    """
    field_info = _pydantic_attr("pydantic.fields", "FieldInfo")
    if field_info is None:
        return
    for klass in cls.__mro__:
        for name, value in list(vars(klass).items()):
            if name in table and isinstance(value, field_info):
                spec = table[name]
                if spec.default is not _MISSING:
                    setattr(klass, name, spec.default)


def declared_fields(cls: type, base: type) -> dict[str, FieldSpec]:
    """The declared fields of `cls` below `base`, read once per class."""
    tables = _tables.get(cls)
    table = None if tables is None else tables.get(base)
    if table is None:
        with _lock:
            tables = _tables.get(cls)
            table = None if tables is None else tables.get(base)
            if table is None:
                table = _read(cls, base)
                _unwrap_class_fields(cls, table)
                if tables is None:
                    tables = {}
                    _tables.put(cls, tables)
                tables[base] = table
    return table


def _value(spec: FieldSpec, value: Any) -> Any:
    if spec.secret and isinstance(value, str):
        from pydantic import SecretStr

        value = SecretStr(value)
    if spec.adapter is not None:
        value = spec.adapter.validate_python(value)
    return value


def init_fields(
    obj: object, given: dict[str, Any], base: type, accepted: Iterable[str] = ()
) -> None:
    """Assign keyword arguments to `obj`'s declared fields, and defaults to the rest.

    Args:
        obj: the instance being built.
        given: the keywords its base class's ``__init__`` did not take itself.
        base: the library class whose subclasses declare the fields.
        accepted: the base class's own keywords (named in the error).

    Raises:
        TypeError: a keyword is not a field, or a required field is missing.
    """
    cls = type(obj)
    table = declared_fields(cls, base)
    unknown = [name for name in given if name not in table]
    if unknown:
        names = sorted({*accepted, *table})
        raise TypeError(
            f"{cls.__name__} got unexpected keyword argument(s) "
            f"{', '.join(repr(n) for n in unknown)}; it accepts: {', '.join(names)}"
        )
    missing: list[str] = []
    for name, spec in table.items():
        if name in given:
            setattr(obj, name, _value(spec, given[name]))
        elif spec.factory is not None:
            setattr(obj, name, spec.factory())
        elif spec.default is _MISSING:
            if name not in vars(obj):
                missing.append(name)
        elif isinstance(spec.default, _MUTABLE):
            setattr(obj, name, copy.copy(spec.default))
    if missing:
        raise TypeError(
            f"{cls.__name__} missing required field(s): {', '.join(repr(n) for n in missing)}"
        )


def fields_repr(obj: object, base: type, shown: Iterable[str] = ()) -> str:
    """``Name(field=value, ...)`` of `shown` and the declared fields (secrets stay masked)."""
    names = [*shown, *(n for n in declared_fields(type(obj), base) if n not in shown)]
    parts = [f"{n}={getattr(obj, n, None)!r}" for n in names]
    return f"{type(obj).__name__}({', '.join(parts)})"
