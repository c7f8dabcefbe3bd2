"""An agent stream closed early by its consumer ends the run (on_chain_end), not a failure."""

from __future__ import annotations

from typing import Any

from test_executor_support import ScriptAgent, act, finish, tools

from leanchain.agents import AgentExecutor
from leanchain.callbacks import BaseCallbackHandler


class Ends(BaseCallbackHandler):
    def __init__(self) -> None:
        self.seen: list[str] = []

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        self.seen.append("end")

    def on_chain_error(self, error: BaseException, **kwargs: Any) -> None:
        self.seen.append(f"error {type(error).__name__}")


def _executor() -> AgentExecutor:
    return AgentExecutor(agent=ScriptAgent(act("echo", "a"), finish("done")), tools=tools())


def test_closing_a_sync_agent_stream_early_is_an_end() -> None:
    handler = Ends()
    stream = _executor().stream({"input": "q"}, {"callbacks": [handler]})
    next(stream)
    stream.close()  # type: ignore[attr-defined]
    assert handler.seen[-1] == "end"
    assert not any(s.startswith("error") for s in handler.seen)


async def test_closing_an_async_agent_stream_early_is_an_end() -> None:
    handler = Ends()
    stream = _executor().astream({"input": "q"}, {"callbacks": [handler]})
    await anext(stream)
    await stream.aclose()  # type: ignore[attr-defined]
    assert handler.seen[-1] == "end"
    assert not any(s.startswith("error") for s in handler.seen)
