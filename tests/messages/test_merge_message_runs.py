"""merge_message_runs: which neighbours merge, and exactly what the merged message holds."""

from __future__ import annotations

import pytest

from leanchain.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    HumanMessageChunk,
    SystemMessage,
    ToolMessage,
    UsageMetadata,
    invalid_tool_call,
    merge_message_runs,
    tool_call,
    tool_call_chunk,
)


@pytest.mark.parametrize("cls", [HumanMessage, AIMessage, SystemMessage])
def test_text_runs_join_with_the_separator(cls: type[BaseMessage]) -> None:
    messages = [cls("foo"), cls("bar"), cls("baz")]
    assert merge_message_runs(messages) == [cls("foo\nbar\nbaz")]
    assert merge_message_runs(messages, chunk_separator="<sep>") == [cls("foo<sep>bar<sep>baz")]
    assert merge_message_runs(messages, chunk_separator="") == [cls("foobarbaz")]


def test_no_separator_next_to_an_empty_text() -> None:
    assert merge_message_runs([HumanMessage(""), HumanMessage("a"), HumanMessage("")]) == [
        HumanMessage("a")
    ]


def test_alternating_kinds_do_not_merge() -> None:
    messages = [
        SystemMessage("s1"),
        SystemMessage("s2"),
        HumanMessage("h1"),
        HumanMessage("h2"),
        AIMessage("a1"),
        HumanMessage("h3"),
        AIMessage("a2"),
        AIMessage("a3"),
    ]
    merged = merge_message_runs(messages)
    assert merged == [
        SystemMessage("s1\ns2"),
        HumanMessage("h1\nh2"),
        AIMessage("a1"),
        HumanMessage("h3"),
        AIMessage("a2\na3"),
    ]
    assert merged[2] is messages[4]  # a message in no run is passed on as it is
    assert merge_message_runs([]) == []


def test_tool_messages_never_merge() -> None:
    messages = [ToolMessage("foo", tool_call_id="1"), ToolMessage("bar", tool_call_id="2")]
    assert merge_message_runs(messages) == messages


def test_chat_and_function_messages_merge_only_with_the_same_role_or_name() -> None:
    messages = [
        ChatMessage("a", role="critic"),
        ChatMessage("b", role="critic"),
        ChatMessage("c", role="editor"),
        FunctionMessage("1", name="f"),
        FunctionMessage("2", name="f"),
        FunctionMessage("3", name="g"),
    ]
    assert merge_message_runs(messages) == [
        ChatMessage("a\nb", role="critic"),
        ChatMessage("c", role="editor"),
        FunctionMessage("1\n2", name="f"),
        FunctionMessage("3", name="g"),
    ]


def test_list_contents_and_tool_calls() -> None:
    """LangChain's own test: contents concatenate, every tool call is kept, the first id."""
    messages = [
        AIMessage("foo", id="1"),
        AIMessage(
            [{"text": "bar", "type": "text"}, {"image_url": "...", "type": "image_url"}],
            tool_calls=[tool_call(name="foo_tool", args={"x": 1}, id="tool1")],
            id="2",
        ),
        AIMessage(
            "baz", tool_calls=[tool_call(name="foo_tool", args={"x": 5}, id="tool2")], id="3"
        ),
    ]
    assert merge_message_runs(messages) == [
        AIMessage(
            [
                "foo",
                {"text": "bar", "type": "text"},
                {"image_url": "...", "type": "image_url"},
                "baz",
            ],
            tool_calls=[
                tool_call(name="foo_tool", args={"x": 1}, id="tool1"),
                tool_call(name="foo_tool", args={"x": 5}, id="tool2"),
            ],
            id="1",
        )
    ]


def test_invalid_tool_calls_are_kept_as_they_were() -> None:
    bad = invalid_tool_call(name="f", args="{oops", id="b1", error="Expecting property name")
    messages = [AIMessage("a", invalid_tool_calls=[bad]), AIMessage("b")]
    assert merge_message_runs(messages) == [AIMessage("a\nb", invalid_tool_calls=[bad])]


def test_metadata_ids_names_and_usage() -> None:
    usage_1 = UsageMetadata(input_tokens=1, output_tokens=2, total_tokens=3)
    usage_2 = UsageMetadata(input_tokens=10, output_tokens=20, total_tokens=30)
    messages = [
        AIMessage(
            "foo",
            id="lc_run--1",
            name="bot",
            response_metadata={"input_tokens": 1},
            additional_kwargs={"tags": ["a"]},
            usage_metadata=usage_1,
        ),
        AIMessage(
            "bar",
            id="chatcmpl-2",
            name="bot",
            response_metadata={"input_tokens": 2},
            additional_kwargs={"tags": ["b"], "x": 1},
            usage_metadata=usage_2,
        ),
    ]
    assert merge_message_runs(messages) == [
        AIMessage(
            "foo\nbar",
            id="chatcmpl-2",  # the provider's id wins over a run id, as chunks add up
            name="bot",
            response_metadata={"input_tokens": 1},  # the first message's
            additional_kwargs={"tags": ["a", "b"], "x": 1},
            usage_metadata=UsageMetadata(input_tokens=11, output_tokens=22, total_tokens=33),
        )
    ]
    humans = [HumanMessage("a", id="h1", name="ann"), HumanMessage("b", id="h2", name="bob")]
    assert merge_message_runs(humans) == [HumanMessage("a\nb", id="h1")]  # two speakers: no name
    assert merge_message_runs([AIMessage("a"), AIMessage("b", usage_metadata=usage_2)]) == [
        AIMessage("a\nb", usage_metadata=usage_2)
    ]


def test_chunks_merge_with_their_kind_into_whole_messages() -> None:
    messages = [
        AIMessageChunk(
            "a", tool_call_chunks=[tool_call_chunk(name="f", args='{"x": 1}', id="c1", index=0)]
        ),
        AIMessage("b"),
        AIMessageChunk("c"),
        HumanMessageChunk("d"),
    ]
    merged = merge_message_runs(messages)
    assert merged == [
        AIMessage("a\nb\nc", tool_calls=[tool_call(name="f", args={"x": 1}, id="c1")]),
        HumanMessageChunk("d"),
    ]
    assert type(merged[0]) is AIMessage


def test_a_chunk_cut_off_in_its_arguments_merges_as_a_finished_reply() -> None:
    cut = AIMessageChunk(
        "", tool_call_chunks=[tool_call_chunk(name="f", args='{"x": ', id="c1", index=0)]
    )
    (merged,) = merge_message_runs([cut, AIMessage("done")])
    assert isinstance(merged, AIMessage)
    assert merged.tool_calls == []
    assert [bad["args"] for bad in merged.invalid_tool_calls] == ['{"x": ']


def test_message_forms_are_read() -> None:
    assert merge_message_runs([("human", "a"), "b", {"role": "assistant", "content": "c"}]) == [
        HumanMessage("a\nb"),
        AIMessage("c"),
    ]


def test_conflicting_additional_kwargs_raise() -> None:
    messages = [
        HumanMessage("a", additional_kwargs={"k": "s"}),
        HumanMessage("b", additional_kwargs={"k": 1}),
    ]
    with pytest.raises(
        TypeError, match=r'^additional_kwargs\["k"\] already exists in this message,'
    ):
        merge_message_runs(messages)


def test_bad_separator() -> None:
    with pytest.raises(ValueError, match=r"^chunk_separator must be a str, got None$"):
        merge_message_runs([], chunk_separator=None)  # type: ignore[call-overload]
    with pytest.raises(ValueError, match=r"^chunk_separator must be a str, got 1$"):
        merge_message_runs(chunk_separator=1)  # type: ignore[call-overload]
