"""A provider model keeps no dead event loop alive (issue 14.7).

``asyncio.run`` per request (scripts, serverless handlers, sync code calling async) used to
leave one loop, one connection pool and one SDK client behind per call, all held by the model.
"""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any

import pytest
from providers_support import anthropic, openai

from leanchain.testing import FakeProviderServer, ScriptedReply

RUNS = 20


def live_loops() -> int:
    gc.collect()
    return sum(isinstance(o, asyncio.AbstractEventLoop) for o in gc.get_objects())


@pytest.fixture(params=["openai", "anthropic"])
def model(request: pytest.FixtureRequest, server: FakeProviderServer) -> Any:
    return openai(server) if request.param == "openai" else anthropic(server)


def test_many_asyncio_runs_leave_no_loop_pool_or_client(
    server: FakeProviderServer, model: Any
) -> None:
    before = live_loops()
    server.enqueue(*[ScriptedReply(text="ok")] * RUNS)
    clients = []

    async def ask() -> str:
        reply = await model.ainvoke("hi")
        clients.append(model._async_client())
        return str(reply.content)

    assert [asyncio.run(ask()) for _ in range(RUNS)] == ["ok"] * RUNS
    assert model._pool.loop_count() == 0  # each forgotten as its loop shut down
    assert live_loops() == before
    assert all(client.is_closed() for client in clients)  # closed on their own loop
    assert len({id(client) for client in clients}) == RUNS


def test_streams_from_many_runs_leave_nothing_either(
    server: FakeProviderServer, model: Any
) -> None:
    server.enqueue(*[ScriptedReply(text="streamed")] * 3)

    async def ask() -> str:
        return "".join([str(chunk.content) async for chunk in model.astream("hi")])

    assert [asyncio.run(ask()) for _ in range(3)] == ["streamed"] * 3
    assert model._pool.loop_count() == 0


def test_a_loop_closed_without_shutting_down_is_forgotten_on_the_next_one(
    server: FakeProviderServer, model: Any
) -> None:
    server.enqueue(ScriptedReply(text="a"), ScriptedReply(text="b"))
    loop = asyncio.new_event_loop()
    assert loop.run_until_complete(model.ainvoke("hi")).content == "a"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)  # its sockets: the caller's doing
        loop.close()  # no shutdown_asyncgens(): the pool cannot close on it
        assert model._pool.loop_count() == 1
        assert asyncio.run(model.ainvoke("hi")).content == "b"
        assert model._pool.loop_count() == 0
        del loop
        gc.collect()


async def test_one_loop_keeps_one_pool_while_it_runs(
    server: FakeProviderServer, model: Any
) -> None:
    server.enqueue(*[ScriptedReply(text="ok")] * 3)
    for _ in range(3):
        await model.ainvoke("hi")
    assert model._pool.loop_count() == 1
