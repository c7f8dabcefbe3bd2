"""`RunnableWithMessageHistory`: a runnable that reads a session's history before each call
and writes the new turn after it (LangChain's, with the same keys and errors)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from leanchain.callbacks.manager import RunManager
from leanchain.chat_history._base import BaseChatMessageHistory
from leanchain.messages import (
    AIMessage,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    message_chunk_to_message,
)
from leanchain.runnables import (
    ConfigurableFieldSpec,
    Runnable,
    RunnableConfig,
    coerce_to_runnable,
)
from leanchain.runnables.config import ensure_config
from leanchain.runnables.utils import add, afold, fold

__all__ = ["GetSessionHistory", "RunnableWithMessageHistory"]

GetSessionHistory = Callable[..., BaseChatMessageHistory]

SESSION_ID = ConfigurableFieldSpec(
    id="session_id",
    annotation=str,
    name="Session ID",
    description="Unique identifier for a session.",
    default="",
    is_shared=True,
)


def _parameter_names(func: Callable[..., Any]) -> list[str]:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _as_messages(value: Any) -> list[BaseMessage]:
    if isinstance(value, str):
        return [HumanMessage(value)]
    if isinstance(value, BaseMessage):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(m, BaseMessage) for m in value):
        return list(value)
    raise ValueError(
        f"Expected str, BaseMessage, list[BaseMessage], or tuple[BaseMessage]. Got {value!r}."
    )


class RunnableWithMessageHistory(Runnable[Any, Any]):
    """Runs `runnable` with a session's history and adds each new turn to it.

    The session comes from ``config["configurable"]["session_id"]`` (or the keys of
    `history_factory_config`), and ``get_session_history(session_id)`` gives its
    `BaseChatMessageHistory`. Before the call the history is put where the runnable expects
    it; after, the new input messages and the output messages are added in one write.

    Args:
        runnable: what to run: a chat model or chain over a list of messages, or a runnable
            over a dict (a prompt | model chain, an `AgentExecutor`).
        get_session_history: session key(s) → history; called with the values positionally
            for one key, by name for several.
        input_messages_key: for a dict input, the key holding the new message(s) (a str, a
            message or a list of them).
        output_messages_key: for a dict output, the key holding the reply (default: the only
            key, else ``"output"``).
        history_messages_key: the input key the history goes under. Without it, the history
            is put before the new messages (the input itself, or its `input_messages_key`).
        history_factory_config: the configurable keys that name a session (default:
            ``session_id``).

    Raises:
        ValueError: several session keys that are not `get_session_history`'s parameters.
    """

    __slots__ = (
        "_keys",
        "_positional",
        "bound",
        "get_session_history",
        "history_factory_config",
        "history_messages_key",
        "input_messages_key",
        "output_messages_key",
    )

    def __init__(
        self,
        runnable: Any,
        get_session_history: GetSessionHistory,
        *,
        input_messages_key: str | None = None,
        output_messages_key: str | None = None,
        history_messages_key: str | None = None,
        history_factory_config: Sequence[ConfigurableFieldSpec] | None = None,
    ) -> None:
        self.bound: Runnable[Any, Any] = coerce_to_runnable(runnable)
        self.get_session_history = get_session_history
        self.input_messages_key = input_messages_key
        self.output_messages_key = output_messages_key
        self.history_messages_key = history_messages_key
        self.history_factory_config = list(history_factory_config or [SESSION_ID])
        self._keys = [spec.id for spec in self.history_factory_config]
        names = _parameter_names(get_session_history)
        if len(self._keys) > 1 and set(self._keys) != set(names):
            raise ValueError(
                f"Expected keys {sorted(self._keys)} do not match parameter names "
                f"{sorted(names)} of get_session_history."
            )
        self._positional = bool(names)

    @property
    def config_specs(self) -> list[ConfigurableFieldSpec]:
        """The session keys, then the wrapped runnable's own."""
        own = {spec.id for spec in self.history_factory_config}
        return [
            *self.history_factory_config,
            *(s for s in self.bound.config_specs if s.id not in own),
        ]

    # -- the session ------------------------------------------------------------------------

    def _history(self, config: RunnableConfig) -> BaseChatMessageHistory:
        configurable = config.get("configurable") or {}
        missing = sorted(set(self._keys) - set(configurable))
        if missing and self._positional:
            example_input = {self.input_messages_key: "foo"}
            example_config = {"configurable": {key: "[your-value-here]" for key in missing}}
            raise ValueError(
                f"Missing keys {missing} in config['configurable'] "
                f"Expected keys are {sorted(self._keys)}."
                "When using via .invoke() or .stream(), pass in a config; "
                f"e.g., chain.invoke({example_input}, {example_config})"
            )
        if len(self._keys) == 1:
            if not self._positional:
                return self.get_session_history()
            return self.get_session_history(configurable[self._keys[0]])
        return self.get_session_history(**{key: configurable[key] for key in self._keys})

    def _new_messages(self, input: Any) -> list[BaseMessage]:
        if isinstance(input, dict):
            if self.input_messages_key:
                key = self.input_messages_key
            elif len(input) == 1:
                key = next(iter(input))
            else:
                key = "input"
            if key not in input:
                raise KeyError(
                    f"RunnableWithMessageHistory expected the input key {key!r}, "
                    f"got {sorted(input)}"
                )
            input = input[key]
        return _as_messages(input)

    def _with_history(
        self, input: Any, history: list[BaseMessage]
    ) -> tuple[Any, list[BaseMessage]]:
        """The wrapped runnable's input, and the new messages the input carries."""
        new = self._new_messages(input)
        if self.history_messages_key:
            if not isinstance(input, dict):
                raise TypeError(
                    "RunnableWithMessageHistory with history_messages_key needs a dict input, "
                    f"got {type(input).__name__}"
                )
            return {**input, self.history_messages_key: history}, new
        if self.input_messages_key:
            return {**input, self.input_messages_key: [*history, *new]}, new
        return [*history, *new], new

    def _reply(self, output: Any) -> list[BaseMessage]:
        if isinstance(output, dict):
            if self.output_messages_key:
                key = self.output_messages_key
            elif len(output) == 1:
                key = next(iter(output))
            else:
                key = "output"
            if key not in output:
                raise KeyError(
                    f"RunnableWithMessageHistory expected the output key {key!r}, "
                    f"got {sorted(output)}"
                )
            output = output[key]
        if isinstance(output, str):
            return [AIMessage(output)]
        messages = _as_messages(output)
        return [
            message_chunk_to_message(m) if isinstance(m, BaseMessageChunk) else m for m in messages
        ]

    # -- running ----------------------------------------------------------------------------

    def _invoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        history = self._history(config)
        inner, new = self._with_history(input, history.messages)
        output = self.bound.invoke(inner, config)
        history.add_messages([*new, *self._reply(output)])
        return output

    async def _ainvoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        history = self._history(config)
        inner, new = self._with_history(input, await history.aget_messages())
        output = await self.bound.ainvoke(inner, config)
        await history.aadd_messages([*new, *self._reply(output)])
        return output

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run with the session's history and add the new turn to it.

        Raises:
            ValueError: the config names no session, or an input or output holds no messages.
        """
        return self._call_with_config(self._invoke, input, config)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Async `invoke` (the history's async methods are used)."""
        return await self._acall_with_config(self._ainvoke, input, config)

    def _stream(
        self, inputs: Iterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> Iterator[Any]:
        got, input = fold(inputs)
        if not got:
            return
        history = self._history(config)
        inner, new = self._with_history(input, history.messages)
        seen, total = False, None
        for chunk in self.bound.stream(inner, config):
            total = add(total, chunk) if seen else chunk
            seen = True
            yield chunk
        if seen:
            history.add_messages([*new, *self._reply(total)])

    async def _astream(
        self, inputs: AsyncIterator[Any], config: RunnableConfig, run: RunManager | None
    ) -> AsyncIterator[Any]:
        got, input = await afold(inputs)
        if not got:
            return
        history = self._history(config)
        inner, new = self._with_history(input, await history.aget_messages())
        seen, total = False, None
        async for chunk in self.bound.astream(inner, config):
            total = add(total, chunk) if seen else chunk
            seen = True
            yield chunk
        if seen:
            await history.aadd_messages([*new, *self._reply(total)])

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """Stream the wrapped runnable's output; the turn is stored once the stream ends."""
        return self._transform_with_config(iter([input]), self._stream, ensure_config(config))

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[Any]:
        """`stream` over input chunks (summed first)."""
        return self._transform_with_config(input, self._stream, ensure_config(config))

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async `stream`."""

        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self._atransform_with_config(one(), self._astream, config):
            yield chunk

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """Async `transform`."""
        async for chunk in self._atransform_with_config(input, self._astream, config):
            yield chunk
