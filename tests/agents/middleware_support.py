"""Driving one executor through every entry point, and a middleware that changes nothing,
for the middleware and loop tests."""

from __future__ import annotations

from typing import Any, Literal, get_args

from leanchain.agents import AgentExecutor
from leanchain.agents.middleware import AgentMiddleware


class PassThrough(AgentMiddleware):
    """Wraps both calls, sync and async, and changes nothing: the run takes the general
    (wrapped) path, to compare the loop's in-place and direct calls with."""

    def wrap_tool_call(self, run: Any, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_model_call(self, run: Any, request: Any, handler: Any) -> Any:
        return handler(request)

    async def awrap_tool_call(self, run: Any, request: Any, handler: Any) -> Any:
        return await handler(request)

    async def awrap_model_call(self, run: Any, request: Any, handler: Any) -> Any:
        return await handler(request)


Entry = Literal[
    "invoke",
    "ainvoke",
    "stream",
    "astream",
    "iter",
    "aiter",
    "batch",
    "abatch",
    "stream_events",
    "astream_events",
]
ENTRIES: tuple[Entry, ...] = get_args(Entry)


def _final(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    last = dict(chunks[-1])
    last.pop("messages", None)
    return last


async def drive(executor: AgentExecutor, input: dict[str, Any], entry: Entry) -> dict[str, Any]:
    """The run's outputs (without the inputs) through `entry`."""
    if entry == "invoke":
        out = executor.invoke(input)
    elif entry == "ainvoke":
        out = await executor.ainvoke(input)
    elif entry == "batch":
        [out] = executor.batch([input])
    elif entry == "abatch":
        [out] = await executor.abatch([input])
    elif entry == "stream":
        out = _final(list(executor.stream(input)))
    elif entry == "astream":
        out = _final([c async for c in executor.astream(input)])
    elif entry == "iter":
        out = _final(list(executor.iter(input)))
    elif entry == "aiter":
        out = _final([c async for c in executor.iter(input)])
    else:
        if entry == "stream_events":
            events = list(executor.stream_events(input))
        else:
            events = [e async for e in executor.astream_events(input)]
        ends = [e for e in events if e["event"] == "on_chain_end" and e["name"] == "AgentExecutor"]
        assert len(ends) == 1
        out = dict(ends[0]["data"]["output"])
    return {k: v for k, v in out.items() if k not in input}
