"""Injected tool arguments: values a tool receives that the model never sees nor fills in.

Mark a parameter (or a field of an ``args_schema`` model) with ``Annotated[T, InjectedToolArg]``
and it stays in the tool's input schema but leaves the schema the model is shown
(`BaseTool.tool_call_schema`, ``tool.args`` and every provider format). The caller passes it
with the other arguments, as in LangChain; leanchain also reads it from
``config["configurable"][name]``, which is how an agent executor hands a tool the user's
session, and a value set there wins over one in the call, so a model cannot forge it.

``Annotated[str, InjectedToolCallId]`` receives the id of the tool call being answered; such a
tool must be invoked with a whole tool call (an agent executor always does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from leanchain.runnables.config import RunnableConfig

__all__ = [
    "InjectedToolArg",
    "InjectedToolCallId",
    "Injections",
    "find_injections",
    "inject",
    "is_injected_marker",
]

_NEEDS_TOOL_CALL = (
    "When tool includes an InjectedToolCallId argument, tool must always be invoked with a "
    "full model ToolCall of the form: {'args': {...}, 'name': '...', 'type': 'tool_call', "
    "'tool_call_id': '...'}"
)


class InjectedToolArg:
    """Marks a tool argument the model does not see: ``Annotated[str, InjectedToolArg]``.

    The class or an instance of it may stand in the annotation's metadata.
    """


class InjectedToolCallId(InjectedToolArg):
    """Marks the argument that receives the answered tool call's id.

    ``def reply(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> ...``
    """


def is_injected_marker(meta: object) -> type[InjectedToolArg] | None:
    """The marker class `meta` is (a subclass of `InjectedToolArg` or an instance of one)."""
    if isinstance(meta, type) and issubclass(meta, InjectedToolArg):
        return meta
    if isinstance(meta, InjectedToolArg):
        return type(meta)
    return None


@dataclass(frozen=True, slots=True)
class Injections:
    """The injected fields of one argument model, read once per model."""

    args: tuple[tuple[str, str], ...]
    """``(field, input key)`` of each `InjectedToolArg` field (the key is its alias or name)."""
    call_id: str | None
    """The input key of the `InjectedToolCallId` field, if there is one."""
    visible: type[BaseModel]
    """The model without the injected fields: what the model is shown."""
    first_visible: str | None
    """The input key a plain string input goes to."""


def _subset(model: type[BaseModel], keep: list[str], title: str, doc: str | None) -> Any:
    fields: dict[str, Any] = {
        name: (model.model_fields[name].annotation, model.model_fields[name]) for name in keep
    }
    return create_model(
        title,
        __config__=ConfigDict(arbitrary_types_allowed=True),
        __doc__=doc,
        **fields,
    )


def find_injections(model: type[BaseModel], title: str, doc: str | None) -> Injections | None:
    """The injected fields of `model`, or ``None`` when it has none (the common case).

    Args:
        model: the tool's argument model.
        title: the title of the visible model (the tool's name).
        doc: its description (the tool's description).
    """
    args: list[tuple[str, str]] = []
    call_id: str | None = None
    keep: list[str] = []
    for name, field in model.model_fields.items():
        marker = next(
            (m for m in map(is_injected_marker, field.metadata) if m is not None),
            None,
        )
        key = field.alias or name
        if marker is None:
            keep.append(name)
        elif issubclass(marker, InjectedToolCallId):
            call_id = key
        else:
            args.append((name, key))
    if call_id is None and not args:
        return None
    first = model.model_fields[keep[0]] if keep else None
    return Injections(
        args=tuple(args),
        call_id=call_id,
        visible=_subset(model, keep, title, doc or None),
        first_visible=(first.alias or keep[0]) if first is not None else None,
    )


def inject(
    found: Injections, tool_input: Any, tool_call_id: str | None, config: RunnableConfig
) -> Any:
    """`tool_input` with the injected values filled in.

    Raises:
        ValueError: the tool wants its call's id and was not invoked with a tool call.
    """
    if isinstance(tool_input, str):
        tool_input = {} if found.first_visible is None else {found.first_visible: tool_input}
    elif isinstance(tool_input, dict):
        tool_input = dict(tool_input)
    else:
        return tool_input
    if found.call_id is not None:
        if tool_call_id is None:
            raise ValueError(_NEEDS_TOOL_CALL)
        tool_input[found.call_id] = tool_call_id
    configurable = config.get("configurable")
    if configurable:
        for _, key in found.args:
            if key in configurable:
                tool_input[key] = configurable[key]
    return tool_input
