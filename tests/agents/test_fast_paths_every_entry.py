"""The unobserved fast paths (the agent's four steps called directly, prompt reuse, the bound
model's direct call, the tool's quick call, the parsers' quick builds) against the traced
path, on every entry point and with every agent type: the same outputs, steps, and model
requests (messages, tools, stop) as a run that a callback handler watches.

`stream_events`/`astream_events` attach a handler themselves, so on those entries both runs
take the traced path; on the others the plain run takes the fast paths.

One difference is by design (docs/migration.md): a watched run streams its agent, so a
tool-calling agent's own reply comes back into its scratchpad as the `AIMessageChunk` the
stream added up, where an unwatched run's is the `AIMessage` it was invoked for. The
messages are compared with chunks turned into messages, and that difference is pinned."""

from __future__ import annotations

from typing import Any

import pytest
from middleware_support import ENTRIES, Entry, drive
from test_executor_agents import IDS, KINDS, Kind, _executor

from leanchain.callbacks import BaseCallbackHandler
from leanchain.messages import AIMessage, AIMessageChunk, message_chunk_to_message


def _script(kind: Kind) -> list[Any]:
    return [kind.call("echo", "a"), kind.call("echo", "b"), kind.answer("42")]


def _requests(model: Any) -> list[tuple[Any, Any, Any]]:
    return [
        ([message_chunk_to_message(m) for m in r.messages], r.tools, r.stop) for r in model.requests
    ]


def _replies_seen(model: Any) -> set[type]:
    """The classes of the agent's own replies in the model's later requests."""
    return {type(m) for r in model.requests for m in r.messages if isinstance(m, AIMessage)}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_fast_paths_run_as_the_traced_path(kind: Kind, entry: Entry) -> None:
    traced, traced_model = _executor(kind, _script(kind), return_intermediate_steps=True)
    expected = traced.invoke({"input": "q"}, {"callbacks": [BaseCallbackHandler()]})
    fast, fast_model = _executor(kind, _script(kind), return_intermediate_steps=True)

    out = await drive(fast, {"input": "q"}, entry)

    assert out["output"] == expected["output"] == "42"
    got = [(a.tool, a.tool_input, a.log, o) for a, o in out["intermediate_steps"]]
    want = [(a.tool, a.tool_input, a.log, o) for a, o in expected["intermediate_steps"]]
    assert got == want
    assert [o for *_, o in got] == ["echo:a", "echo:b"]
    assert _requests(fast_model) == _requests(traced_model)
    assert len(fast_model.requests) == 3
    tool_calling = kind.name in ("tool-calling", "openai-tools")
    watched = entry in ("stream_events", "astream_events")
    if tool_calling:
        assert _replies_seen(traced_model) == {AIMessageChunk}
        assert _replies_seen(fast_model) == ({AIMessageChunk} if watched else {AIMessage})
