"""`cassette()`: modes, matching, the file format, secrets, and what loading may build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from leanchain.callbacks import BaseCallbackHandler
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import AIMessage, AIMessageChunk, HumanMessage, UsageMetadata
from leanchain.runnables import RunnableLambda
from leanchain.testing import (
    REDACTED,
    Cassette,
    CassetteFormatError,
    CassetteMismatchError,
    cassette,
)

USAGE = UsageMetadata(input_tokens=4, output_tokens=2, total_tokens=6)


def scripted(*replies: Any) -> ScriptedChatModel:
    return ScriptedChatModel(list(replies))


def empty() -> ScriptedChatModel:
    """A model with no replies: any call that reaches it raises."""
    return ScriptedChatModel([])


def never(messages: Any, request: Any) -> str:
    raise AssertionError("the model ran")


def no_function() -> FunctionChatModel:
    """A function model that must not run (replay only)."""
    return FunctionChatModel(never)


class Tokens(BaseCallbackHandler):
    """A handler that asks for tokens (as the event stream does) and keeps them."""

    wants_tokens = True

    def __init__(self) -> None:
        self.tokens: list[str] = []

    def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


# -- modes ------------------------------------------------------------------------------------


def test_record_then_replay_without_the_model(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record") as tape:
        reply = scripted(ScriptedChatModel.reply("hi there", usage=USAGE)).invoke("hello")
    assert tape.mode == "record"
    assert [(e.call, e.model, e.reply) for e in tape.entries] == [
        ("invoke", "ScriptedChatModel", reply)
    ]
    with cassette(path, mode="replay") as tape:
        again = empty().invoke("hello")
    assert again == reply == AIMessage(content="hi there", usage_metadata=USAGE)
    assert tape.unplayed == []


def test_once_records_when_the_file_is_missing_and_replays_when_it_is_there(
    tmp_path: Path,
) -> None:
    path = tmp_path / "sub" / "c.json"
    with cassette(path) as first:
        scripted("one").invoke("q")
    assert first.mode == "record"
    assert path.exists()
    with cassette(path) as second:
        assert empty().invoke("q").text == "one"
    assert second.mode == "replay"


def test_record_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        scripted("old").invoke("q")
    with cassette(path, mode="record"):
        scripted("new").invoke("q")
    with cassette(path, mode="replay") as tape:
        assert empty().invoke("q").text == "new"
    assert len(tape.entries) == 1


def test_none_lets_calls_run_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = scripted("live")
    with cassette(path, mode="none") as tape:
        assert model.invoke("q").text == "live"
    assert tape.entries == []
    assert not path.exists()


async def test_async_with_records_and_replays(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    async with cassette(path, mode="record"):
        live = await scripted("async reply").ainvoke("q")
    async with cassette(path, mode="replay") as tape:
        assert await empty().ainvoke("q") == live
    assert [e.call for e in tape.entries] == ["ainvoke"]


def test_unknown_mode() -> None:
    with pytest.raises(ValueError) as info:
        cassette("c.json", mode="playback")  # type: ignore[arg-type]
    assert str(info.value) == (
        "cassette mode must be one of record, replay, once, none, got 'playback'"
    )


def test_replaying_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.json"
    with pytest.raises(FileNotFoundError) as info, cassette(path, mode="replay"):
        pass
    assert str(info.value) == (
        f"cassette {path} does not exist: record it first (mode='record' or 'once')"
    )


def test_a_cassette_is_entered_once(tmp_path: Path) -> None:
    tape = cassette(tmp_path / "c.json", mode="record")
    with tape, pytest.raises(RuntimeError) as info, tape:
        pass
    assert str(info.value) == f"cassette {tmp_path / 'c.json'} is already in use; make a new one"


def test_a_recording_is_written_even_when_the_block_fails(tmp_path: Path) -> None:
    path = tmp_path / "c.json"

    def run() -> None:
        with cassette(path, mode="record"):
            scripted("before the failure").invoke("q")
            raise KeyError("boom")

    with pytest.raises(KeyError):
        run()
    with cassette(path, mode="replay"):
        assert empty().invoke("q").text == "before the failure"


def test_repr(tmp_path: Path) -> None:
    tape = Cassette(tmp_path / "c.json", mode="record")
    assert repr(tape) == f"Cassette({str(tmp_path / 'c.json')!r}, mode='record', entries=0)"


# -- matching ---------------------------------------------------------------------------------


def test_requests_match_by_key_not_by_position(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = FunctionChatModel(lambda messages, request: f"answer to {messages[-1].text}")
    with cassette(path, mode="record"):
        model.invoke("a")
        model.invoke("b")
    with cassette(path, mode="replay"):
        assert no_function().invoke("b").text == "answer to b"
        assert no_function().invoke("a").text == "answer to a"


def test_the_same_request_gets_its_recordings_in_order(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        model = scripted("first", "second")
        model.invoke("same")
        model.invoke("same")
    with cassette(path, mode="replay"):
        assert [empty().invoke("same").text for _ in range(2)] == ["first", "second"]
        with pytest.raises(CassetteMismatchError) as info:
            empty().invoke("same")
    assert str(info.value) == (
        f"cassette {path}: no recorded call matches this invoke of ScriptedChatModel: the "
        "request was recorded 2 time(s) (entry 1, 2) and every recording has been played; "
        "the run asks it more often than the recorded one did"
    )


def test_concurrent_calls_replay_by_request(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = FunctionChatModel(lambda messages, request: messages[-1].text.upper())
    with cassette(path, mode="record"):
        assert RunnableLambda(lambda x: x).pipe(model).batch(["x", "y", "z"]) == [
            AIMessage(content="X"),
            AIMessage(content="Y"),
            AIMessage(content="Z"),
        ]
    with cassette(path, mode="replay"):
        assert [m.text for m in no_function().batch(["z", "x", "y"])] == ["Z", "X", "Y"]


def test_stop_tools_and_model_settings_are_part_of_the_key(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        scripted("stopped").invoke("q", stop=["\nObservation"])
    with cassette(path, mode="replay"), pytest.raises(CassetteMismatchError) as info:
        empty().invoke("q", stop=["\nObs"])
    assert info.value.diff.splitlines()[-3:] == [
        '-  "stop": ["\\nObservation"]',
        '+  "stop": ["\\nObs"]',
        " }",
    ]


def test_an_empty_cassette_says_so(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{"version": 1, "entries": []}')
    with cassette(path, mode="replay"), pytest.raises(CassetteMismatchError) as info:
        empty().invoke("q")
    assert str(info.value) == (
        f"cassette {path}: no recorded call matches this invoke of ScriptedChatModel; the "
        "cassette holds no calls. The call asks:\n"
        "{\n"
        '  "model": {"type": "scripted-chat-model", "params": {}},\n'
        '  "messages": [\n'
        "    {\n"
        '      "type": "human",\n'
        '      "content": "q"\n'
        "    }\n"
        "  ]\n"
        "}"
    )
    assert info.value.closest is None
    assert info.value.diff == ""


def test_the_mismatch_picks_the_closest_request(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = FunctionChatModel(lambda messages, request: "ok")
    with cassette(path, mode="record"):
        model.invoke([("system", "You add numbers."), ("human", "What is 1 + 1?")])
        model.invoke([("system", "You write poems."), ("human", "A poem on rain")])
    with cassette(path, mode="replay"), pytest.raises(CassetteMismatchError) as info:
        no_function().invoke([("system", "You write poems."), ("human", "A poem on snow")])
    assert info.value.closest is not None
    assert info.value.closest["messages"][1]["content"] == "A poem on rain"
    assert [line for line in info.value.diff.splitlines() if line[:1] in "+-"] == [
        "--- recorded (entry 2 of 2, invoke)",
        "+++ this call (invoke)",
        '-      "content": "A poem on rain"',
        '+      "content": "A poem on snow"',
    ]
    assert isinstance(info.value, LookupError)


# -- streams ----------------------------------------------------------------------------------


def test_stream_replays_the_exact_chunks(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = scripted(ScriptedChatModel.tool_call("add", {"a": 1, "b": 2}, content="Adding."))
    with cassette(path, mode="record") as tape:
        live = list(model.bind_tools([]).stream("q"))
    assert len(live) > 2
    [entry] = tape.entries
    assert entry.chunks == tuple(live)
    assert entry.reply is not None
    assert entry.reply.tool_calls == [
        {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_1", "type": "tool_call"}
    ]
    with cassette(path, mode="replay"):
        assert list(empty().bind_tools([]).stream("q")) == live


async def test_astream_replays_the_exact_chunks(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    async with cassette(path, mode="record"):
        live = [c async for c in scripted("one two three").astream("q")]
    async with cassette(path, mode="replay"):
        assert [c async for c in empty().astream("q")] == live
    assert [c.content for c in live] == ["one", " ", "two", " ", "three"]


def test_a_recorded_invoke_serves_a_stream_and_the_other_way_round(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        scripted("whole reply").invoke("a")
        list(scripted("streamed reply").stream("b"))
    with cassette(path, mode="replay"):
        chunks = list(empty().stream("a"))
        reply = empty().invoke("b")
    assert [(c.content, c.chunk_position) for c in chunks] == [("whole reply", "last")]
    assert reply == AIMessage(content="streamed reply")


def test_an_invoke_that_streams_for_a_token_handler_replays_its_tokens(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    live_tokens, replayed_tokens = Tokens(), Tokens()
    with cassette(path, mode="record") as tape:
        live = scripted("a b c").invoke("q", {"callbacks": [live_tokens]})
    assert tape.entries[0].call == "invoke"
    assert tape.entries[0].chunks is not None
    with cassette(path, mode="replay"):
        replayed = empty().invoke("q", {"callbacks": [replayed_tokens]})
    assert replayed == live
    assert replayed_tokens.tokens == live_tokens.tokens == ["a", " ", "b", " ", "c"]


def test_a_stream_closed_early_records_what_the_caller_saw(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record") as tape:
        stream = scripted("one two three").stream("q")
        assert next(stream).content == "one"
        stream.close()  # type: ignore[attr-defined]
    assert tape.entries[0].chunks == (AIMessageChunk(content="one"),)


def test_calls_that_raise_are_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = scripted(ValueError("model down"), "fine")
    with cassette(path, mode="record") as tape:
        with pytest.raises(ValueError, match="model down"):
            model.invoke("q")
        model.invoke("q")
    assert [e.reply for e in tape.entries] == [AIMessage(content="fine")]


def test_a_replayed_call_still_makes_its_model_run_for_callbacks(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        live = [e["event"] for e in scripted("x y").stream_events("q")]
    with cassette(path, mode="replay"):
        replayed = [e["event"] for e in empty().stream_events("q")]
    assert (
        replayed
        == live
        == [
            "on_chat_model_start",
            "on_chat_model_stream",
            "on_chat_model_stream",
            "on_chat_model_stream",
            "on_chat_model_end",
        ]
    )


# -- the file ---------------------------------------------------------------------------------


def test_the_file_format(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    with cassette(path, mode="record"):
        scripted(ScriptedChatModel.reply("line one\nline two", usage=USAGE)).invoke(
            [("system", "Be short.\nBe kind."), ("human", "hi")]
        )
        list(scripted("a b").stream("again"))
    assert path.read_text(encoding="utf-8") == (
        "{\n"
        '  "version": 1,\n'
        '  "entries": [\n'
        "    {\n"
        '      "call": "invoke",\n'
        '      "model": "ScriptedChatModel",\n'
        '      "request": {\n'
        '        "model": {"type": "scripted-chat-model", "params": {}},\n'
        '        "messages": [\n'
        "          {\n"
        '            "type": "system",\n'
        '            "content_lines": [\n'
        '              "Be short.",\n'
        '              "Be kind."\n'
        "            ]\n"
        "          },\n"
        "          {\n"
        '            "type": "human",\n'
        '            "content": "hi"\n'
        "          }\n"
        "        ]\n"
        "      },\n"
        '      "reply": {\n'
        '        "type": "ai",\n'
        '        "content_lines": [\n'
        '          "line one",\n'
        '          "line two"\n'
        "        ],\n"
        '        "usage_metadata": {"input_tokens": 4, "output_tokens": 2, "total_tokens": 6}\n'
        "      }\n"
        "    },\n"
        "    {\n"
        '      "call": "stream",\n'
        '      "model": "ScriptedChatModel",\n'
        '      "request": {\n'
        '        "model": {"type": "scripted-chat-model", "params": {}},\n'
        '        "messages": [\n'
        "          {\n"
        '            "type": "human",\n'
        '            "content": "again"\n'
        "          }\n"
        "        ]\n"
        "      },\n"
        '      "reply": {\n'
        '        "type": "ai",\n'
        '        "content": "a b"\n'
        "      },\n"
        '      "chunks": [\n'
        '        {"content": "a"},\n'
        '        {"content": " "},\n'
        '        {"content": "b", "chunk_position": "last"}\n'
        "      ]\n"
        "    }\n"
        "  ]\n"
        "}\n"
    )


def test_loading_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{not json")
    with pytest.raises(CassetteFormatError) as info, cassette(path, mode="replay"):
        pass
    assert str(info.value).startswith(f"cassette {path} is not JSON: Expecting property name")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "expected an object with 'version' and 'entries'"),
        (
            {"version": 2, "entries": []},
            "is format version 2; this leanchain reads version 1 (record it again)",
        ),
        ({"version": 1, "entries": {}}, "'entries' must be a list"),
        ({"version": 1, "entries": [1]}, "entry 1: expected an object"),
        (
            {"version": 1, "entries": [{"call": "eval"}]},
            "entry 1: 'call' must be one of invoke, ainvoke, stream, astream, got 'eval'",
        ),
        (
            {"version": 1, "entries": [{"call": "invoke", "model": "m"}]},
            "entry 1: needs a 'model' name and a 'request' object",
        ),
        (
            {"version": 1, "entries": [{"call": "invoke", "model": "m", "request": {}}]},
            "entry 1: the request needs a 'messages' list",
        ),
        (
            {
                "version": 1,
                "entries": [{"call": "invoke", "model": "m", "request": {"messages": []}}],
            },
            "entry 1: has neither a 'reply' nor 'chunks'",
        ),
        (
            {
                "version": 1,
                "entries": [
                    {
                        "call": "invoke",
                        "model": "m",
                        "request": {"messages": []},
                        "reply": {"type": "os.system", "content": "rm -rf /"},
                    }
                ],
            },
            "entry 1 reply: not a message leanchain can read: Got unexpected message type: "
            "os.system",
        ),
        (
            {
                "version": 1,
                "entries": [
                    {
                        "call": "invoke",
                        "model": "m",
                        "request": {"messages": []},
                        "reply": {"type": "human", "content": "not a reply"},
                    }
                ],
            },
            "entry 1 reply: expected an 'ai' message, got 'human'",
        ),
        (
            {
                "version": 1,
                "entries": [
                    {
                        "call": "stream",
                        "model": "m",
                        "request": {"messages": []},
                        "chunks": [{"content": "a"}, "b"],
                    }
                ],
            },
            "entry 1 chunk 2: expected a chunk object, got str",
        ),
        (
            {
                "version": 1,
                "entries": [
                    {
                        "call": "invoke",
                        "model": "m",
                        "request": {"messages": []},
                        "reply": {"type": "ai", "content_lines": "one line"},
                    }
                ],
            },
            "entry 1 reply: 'content_lines' must be a list of strings",
        ),
    ],
)
def test_loading_says_what_it_could_not_read(tmp_path: Path, document: Any, message: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CassetteFormatError) as info, cassette(path, mode="replay"):
        pass
    assert str(info.value).startswith(f"cassette {path}")
    assert str(info.value).endswith(message)
    assert isinstance(info.value, ValueError)


def test_loading_builds_only_leanchain_messages(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "entries": [
                    {
                        "call": "invoke",
                        "model": "m",
                        "request": {"messages": [{"type": "human", "content": "q"}]},
                        "reply": {
                            "type": "ai",
                            "content": "plain",
                            "additional_kwargs": {"__class__": "subprocess.Popen"},
                        },
                    }
                ],
            }
        )
    )
    with cassette(path, mode="replay") as tape:
        pass
    reply = tape.entries[0].reply
    assert type(reply) is AIMessage
    assert reply.additional_kwargs == {"__class__": "subprocess.Popen"}


# -- secrets ----------------------------------------------------------------------------------


def test_secrets_in_settings_headers_and_text_are_never_written(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    model = scripted(
        AIMessage(
            content="done",
            response_metadata={"headers": {"authorization": "Bearer abc.def.ghi"}, "ok": 1},
        )
    )
    bound = model.bind(api_key=SecretStr("hidden-value"), extra_headers={"X-Api-Key": "k-1234"})
    with cassette(path, mode="record"):
        bound.invoke("my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX, keep it")
    text = path.read_text(encoding="utf-8")
    for secret in ("hidden-value", "k-1234", "abc.def.ghi", "ABCDEFGHIJKLMNOPQRSTUVWX"):
        assert secret not in text
    document = json.loads(text)
    [entry] = document["entries"]
    assert entry["request"]["kwargs"] == {
        "api_key": REDACTED,
        "extra_headers": {"X-Api-Key": REDACTED},
    }
    assert entry["request"]["messages"][0]["content"] == f"my key is {REDACTED}, keep it"
    assert entry["reply"]["response_metadata"] == {"headers": {"authorization": REDACTED}, "ok": 1}
    with cassette(path, mode="replay"):
        again = empty().bind(api_key=SecretStr("hidden-value"), extra_headers={"X-Api-Key": "x"})
        assert again.invoke("my key is sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX, keep it").text == "done"


def test_tool_arguments_named_like_credentials_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    call = ScriptedChatModel.tool_call("login", {"password_hint": "the cat's name"})
    with cassette(path, mode="record"):
        scripted(call).invoke("q")
    with cassette(path, mode="replay"):
        assert empty().invoke("q").tool_calls[0]["args"] == {"password_hint": "the cat's name"}


def test_a_model_secret_setting_is_kept_out_of_the_file(tmp_path: Path) -> None:
    class KeyedModel(FunctionChatModel):
        __slots__ = ("api_key",)
        api_key: SecretStr

    model = KeyedModel(lambda messages, request: "the key was " + "x9-secret-value")
    model.api_key = SecretStr("x9-secret-value")
    with cassette(tmp_path / "c.json", mode="record"):
        assert model.invoke("q").text == "the key was x9-secret-value"
    text = (tmp_path / "c.json").read_text(encoding="utf-8")
    assert "x9-secret-value" not in text
    assert f'"content": "the key was {REDACTED}"' in text


def test_messages_stay_leanchain_types_after_a_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    history = [HumanMessage("q", id="h1", name="ann")]
    with cassette(path, mode="record"):
        scripted(ScriptedChatModel.reply("r", id="r1")).invoke(history)
    with cassette(path, mode="replay") as tape:
        reply = empty().invoke([HumanMessage("q", id="another id", name="ann")])
    assert reply == AIMessage(content="r", id="r1")
    assert tape.entries[0].request["messages"] == [{"type": "human", "content": "q", "name": "ann"}]
