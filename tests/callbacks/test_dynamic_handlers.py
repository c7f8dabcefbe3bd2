"""A handler that answers its hooks dynamically still hears every event."""

from __future__ import annotations

from typing import Any

from leanchain.callbacks import BaseCallbackHandler
from leanchain.runnables import RunnableLambda


class EveryEvent(BaseCallbackHandler):
    """Records the name of every hook called, through __getattribute__."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("on_"):
            names = object.__getattribute__(self, "names")
            return lambda *args, **kwargs: names.append(name)
        return object.__getattribute__(self, name)


def test_a_getattribute_handler_hears_every_event() -> None:
    handler = EveryEvent()
    chain = RunnableLambda(lambda x: x + 1) | RunnableLambda(lambda x: x * 2)
    assert chain.invoke(1, {"callbacks": [handler]}) == 4
    assert handler.names == ["on_chain_start"] * 2 + ["on_chain_end"] + [
        "on_chain_start",
        "on_chain_end",
        "on_chain_end",
    ]
