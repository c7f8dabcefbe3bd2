"""What a recording model keeps of each call (`ChatRequest`), and a binding's quick call to one.

The scripted and function models (`_scripted`) record every call they receive as a
`ChatRequest`: tests read the messages, tools, ``tool_choice``, stop sequences and keyword
arguments of each. An agent calls such a model through a binding on every step, so the request
is built here without the frozen dataclass's `__init__` (`new_request`), and the binding's
`RecordedCall` splits the request's parts from its bound arguments once, when it is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from leanchain.messages import AIMessage
from leanchain.prompts import ChatPromptValue, StringPromptValue

from ._direct import BoundModelCall
from ._intercept import INTERCEPTORS

if TYPE_CHECKING:
    from leanchain.messages import BaseMessage
    from leanchain.runnables import RunnableConfig

    from ._base import BaseChatModel, LanguageModelInput, ToolChoice
    from ._scripted import _RecordingChatModel

__all__ = ["ChatRequest", "RecordedCall", "new_request"]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One call a scripted or function model received."""

    messages: list[BaseMessage]
    """The messages the model was given."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """The tool schemas offered (OpenAI format, as `bind_tools` converts them)."""
    tool_choice: ToolChoice | None = None
    """The ``tool_choice`` the call was made with."""
    stop: list[str] | None = None
    """The stop sequences the call was made with."""
    kwargs: dict[str, Any] = field(default_factory=dict)
    """Every other keyword argument of the call (bound ones included)."""

    @property
    def tool_names(self) -> list[str]:
        """The names of the offered tools, in order."""
        names: list[str] = []
        for tool in self.tools:
            function = tool.get("function")
            names.append(str(function["name"] if isinstance(function, Mapping) else tool["name"]))
        return names


_PROMPT_VALUES = (ChatPromptValue, StringPromptValue)
"""The prompt values whose messages `BaseChatModel._convert_input` takes as they are."""

_new = object.__new__
# The slots' own setters: a frozen dataclass's `__init__` sets each field through
# ``object.__setattr__``, which costs twice as much.
_set_messages, _set_tools, _set_tool_choice, _set_stop, _set_kwargs = (
    ChatRequest.__dict__[name].__set__
    for name in ("messages", "tools", "tool_choice", "stop", "kwargs")
)


def new_request(
    messages: list[BaseMessage],
    tools: list[dict[str, Any]],
    tool_choice: ToolChoice | None,
    stop: list[str] | None,
    kwargs: dict[str, Any],
) -> ChatRequest:
    """``ChatRequest(messages, tools, tool_choice, stop, kwargs)``, for a model that records it."""
    request = _new(ChatRequest)
    _set_messages(request, messages)
    _set_tools(request, tools)
    _set_tool_choice(request, tool_choice)
    _set_stop(request, stop)
    _set_kwargs(request, kwargs)
    return request


class RecordedCall(BoundModelCall):
    """A recording model's bound call: its request's parts split from the bound arguments once.

    Unwatched, the call is what the model's `_unwatched_reply` makes of it without a
    `ChatResult` (`_RecordingChatModel._skips_result`): a fresh request recorded, and its
    reply (`_RecordingChatModel._answer`: cut at the stop sequences, after the delay),
    unwrapped here. Whether the model's class lets that be done here is read once, when the
    binding is made, as the callback dispatch tables read which hooks a handler overrides: a
    subclass with its own results, request, input conversion or unwrapping (or a bound
    keyword that is one of `_generate`'s parameters) is called through `_unwatched_reply`
    instead.
    """

    __slots__ = ("_choice", "_recording", "_rest", "_tools")

    def __init__(self, model: BaseChatModel, kwargs: Mapping[str, Any]) -> None:
        from ._scripted import _RecordingChatModel  # imports this module

        super().__init__(model, kwargs)
        rest = dict(self._kwargs)
        self._tools = rest.pop("tools", None)
        self._choice = rest.pop("tool_choice", None)
        self._rest = rest
        own = _RecordingChatModel
        self._recording: _RecordingChatModel | None = None
        if (
            isinstance(model, own)
            and model._skips_result(kwargs)
            and all(getattr(type(model), name) is getattr(own, name) for name in _STOOD_FOR)
        ):
            self._recording = model

    def _request(self, model: _RecordingChatModel, input: LanguageModelInput) -> ChatRequest:
        """What `_RecordingChatModel._request` records for `input` (fresh lists and dict);
        a prompt value's messages read in place of the model's `_convert_input`, which its
        class keeps (`_STOOD_FOR`)."""
        if type(input) in _PROMPT_VALUES:
            messages = input.to_messages()  # type: ignore[union-attr]
        else:
            messages = model._convert_input(input)
        stop = self._stop
        return new_request(
            messages,
            list(self._tools or ()),
            self._choice,
            None if stop is None else list(stop),
            dict(self._rest),
        )

    def quiet(self, input: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        model = self._recording
        if model is None or INTERCEPTORS.get() or type(model).invoke is not self._base.invoke:
            return super().quiet(input, config)
        stop = self._stop
        reply = model._answer(self._request(model, input), stop)
        if type(reply) is AIMessage and not model.client_side_stop:  # as `_unwrapped` leaves it
            return reply
        return model._unwrapped(reply, stop)

    async def aquiet(self, input: LanguageModelInput, config: RunnableConfig) -> AIMessage:
        model = self._recording
        if model is None or INTERCEPTORS.get() or type(model).ainvoke is not self._base.ainvoke:
            return await super().aquiet(input, config)
        stop = self._stop
        reply = await model._aanswer(self._request(model, input), stop)
        if type(reply) is AIMessage and not model.client_side_stop:
            return reply
        return model._unwrapped(reply, stop)


_STOOD_FOR = (
    "_unwatched_reply",
    "_aunwatched_reply",
    "_skips_result",
    "_recorded_reply",
    "_arecorded_reply",
    "_request",
    "_convert_input",
    "_unwrapped",
)
"""The methods of `_RecordingChatModel` whose work `RecordedCall.quiet` does itself."""
