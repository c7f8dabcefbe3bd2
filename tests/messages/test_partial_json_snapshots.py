"""Streamed partial-JSON values are snapshots: a later chunk never changes an earlier value.

A resumed scan reuses what it decoded before (the finished elements of each open container)
and copies only the containers still open, so these check, for any JSON text and any
chunking, that the last value is ``json.loads``'s, that every earlier value reads exactly as it
did when it was returned, and that scans resumed twice, or at once from several threads, still
read their own text. Tool-call arguments summed chunk by chunk keep the same promise.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import operator
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain._partial_json import JsonPrefixScan, parse_partial_json
from leanchain.messages import AIMessageChunk, tool_call, tool_call_chunk

SPACE = st.sampled_from(["", " ", "\n  ", "\t"])
KEYS = st.builds(
    lambda key, ascii_only: json.dumps(key, ensure_ascii=ascii_only),
    st.sampled_from(["a", "b", "k\u00e9", 'q"', ""]) | st.text(max_size=3),
    st.booleans(),
)
SCALARS = st.one_of(
    st.sampled_from(["null", "true", "false"]),
    st.integers(-(10**20), 10**20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(json.dumps),
    st.builds(
        lambda text, ascii_only: json.dumps(text, ensure_ascii=ascii_only),
        st.text(max_size=8),
        st.booleans(),
    ),
)


def _array(items: list[str], space: str) -> str:
    return "[" + space + ("," + space).join(items) + space + "]"


def _object(pairs: list[tuple[str, str]], space: str) -> str:
    members = (f"{key}{space}:{space}{value}" for key, value in pairs)
    return "{" + space + ("," + space).join(members) + space + "}"


def _containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # Keys come from a small set, so objects often repeat one: the last value wins, at the
    # place where the key first came (json's rule, which resumed parsing must keep).
    return st.builds(_array, st.lists(inner, max_size=4), SPACE) | st.builds(
        _object, st.lists(st.tuples(KEYS, inner), max_size=4), SPACE
    )


JSON_TEXTS = st.recursive(SCALARS, _containers, max_leaves=16)
"""JSON texts (not values): repeated keys, assorted whitespace, escaped and raw unicode."""
JSON_OBJECTS = st.builds(_object, st.lists(st.tuples(KEYS, JSON_TEXTS), max_size=5), SPACE)


def split(text: str, cuts: list[int]) -> list[str]:
    """`text` cut at the given points (clamped, deduplicated), no piece empty."""
    points = sorted({min(c, len(text)) for c in cuts} - {0, len(text)})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def streamed(pieces: list[str]) -> Iterator[tuple[str, Any]]:
    """Each prefix that holds a value, with the value a resumed scan reads from it."""
    text = ""
    scan: JsonPrefixScan | None = None
    for piece in pieces:
        text += piece
        scan = JsonPrefixScan.of(text, scan)
        try:
            value = scan.parse(text)
        except json.JSONDecodeError:
            continue  # no value yet ("", "-", "tr", ...)
        yield text, value


@settings(max_examples=300, deadline=None)
@given(JSON_TEXTS, st.lists(st.integers(0, 120), max_size=12))
def test_property_streamed_values_stay_as_they_were_returned(text: str, cuts: list[int]) -> None:
    seen = []
    for prefix, value in streamed(split(text, cuts)):
        # repr, not ==: key order, 1 against 1.0 and -0.0 count too.
        assert repr(value) == repr(parse_partial_json(prefix)), prefix
        seen.append((value, copy.deepcopy(value)))
    assert seen
    assert repr(seen[-1][0]) == repr(json.loads(text))
    for value, as_returned in seen:
        assert repr(value) == repr(as_returned)


def test_repeated_keys_resume_in_place_as_json_orders_them() -> None:
    text = '{"a": 1, "b": [2], "a": {"c": 3, "c": 4}, "d": 5, "b": 6}'
    values = [value for _, value in streamed(list(text))]
    assert values[-1] == {"a": {"c": 4}, "b": 6, "d": 5}
    assert list(values[-1]) == ["a", "b", "d"]
    assert values[-1] == json.loads(text)
    assert {"a": 1, "b": [2]} in values
    assert {"a": {"c": 3}, "b": [2]} in values


def test_every_open_container_is_a_new_object_and_finished_values_are_shared() -> None:
    first = '{"done": {"x": [1]}, "open": [1, {"in": [2, '
    scan = JsonPrefixScan.of(first)
    value = scan.parse(first)
    assert value == {"done": {"x": [1]}, "open": [1, {"in": [2]}]}
    # Changing what was returned, open containers included, leaves the next reading alone.
    value["open"][1]["in"].append("junk")
    value["open"].append("junk")
    value["junk"] = True
    second = first + '3], "more": 4}, 5'
    later = JsonPrefixScan.of(second, scan).parse(second)
    assert later == {"done": {"x": [1]}, "open": [1, {"in": [2, 3], "more": 4}, 5]}
    assert later["done"] is value["done"]  # finished when first read: not rebuilt


def test_a_scan_resumed_twice_reads_each_continuation() -> None:
    base = '{"xs": [' + ", ".join(f'{{"n": {i}}}' for i in range(50)) + ", "
    scan = JsonPrefixScan.of(base)
    before = scan.parse(base)
    left, right = base + '"L"', base + '"R", "R2"'
    assert JsonPrefixScan.of(left, scan).parse(left)["xs"][-1] == "L"
    assert JsonPrefixScan.of(right, scan).parse(right)["xs"][-2:] == ["R", "R2"]
    # The first continuation took the remembered elements; the scan itself still reads.
    assert scan.parse(base) == before == {"xs": [{"n": i} for i in range(50)]}


def test_scans_resumed_from_many_threads_at_once_read_their_own_text() -> None:
    base = '{"xs": [' + ", ".join(str(i) for i in range(3000)) + ", "
    scan = JsonPrefixScan.of(base)
    scan.parse(base)
    texts = [base + ", ".join(f'"t{k}"' for _ in range(k + 1)) for k in range(16)]

    def read(text: str) -> Any:
        return JsonPrefixScan.of(text, scan).parse(text)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(read, texts))
    finally:
        sys.setswitchinterval(interval)
    for k, result in enumerate(results):
        assert result == {"xs": [*range(3000), *[f"t{k}"] * (k + 1)]}


@pytest.mark.parametrize("digits", [1, 15, 16, 17, 100, 4000])
def test_long_numbers_at_the_end_are_measured_whole(digits: int) -> None:
    number = "7" * digits
    assert parse_partial_json(f"[{number}") == [int(number)]
    assert parse_partial_json(f'{{"a": [{number}, tru') == {"a": [int(number)]}
    if digits <= 300:  # a float that long overflows
        assert parse_partial_json(f'{{"a": 1, "b": -{number}.5e') == {
            "a": 1,
            "b": float(f"-{number}.5"),
        }


def test_an_integer_longer_than_python_reads_is_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        parse_partial_json("[" + "7" * 5000)


# The same promise through AIMessageChunk sums: each sum's tool calls are its own.


def _arg_chunks(pieces: list[str]) -> list[AIMessageChunk]:
    first = tool_call_chunk(name="f", args=pieces[0], id="call_1", index=0)
    chunks = [AIMessageChunk("", tool_call_chunks=[first])]
    chunks += [
        AIMessageChunk("", tool_call_chunks=[tool_call_chunk(args=p, index=0)]) for p in pieces[1:]
    ]
    return chunks


@settings(max_examples=200, deadline=None)
@given(JSON_OBJECTS, st.lists(st.integers(0, 120), max_size=12))
def test_property_each_sum_keeps_the_arguments_it_was_built_with(
    text: str, cuts: list[int]
) -> None:
    chunks = _arg_chunks(split(text, cuts))
    total = chunks[0]
    seen = [(total, copy.deepcopy(total.tool_calls), copy.deepcopy(total.invalid_tool_calls))]
    for chunk in chunks[1:]:
        total = total + chunk
        seen.append(
            (total, copy.deepcopy(total.tool_calls), copy.deepcopy(total.invalid_tool_calls))
        )
    assert total.tool_calls == [tool_call(name="f", args=json.loads(text), id="call_1")]
    assert repr(total.tool_calls[0]["args"]) == repr(json.loads(text))
    for message, calls, invalid in seen:
        assert repr(message.tool_calls) == repr(calls)
        assert repr(message.invalid_tool_calls) == repr(invalid)
    everything = functools.reduce(operator.add, chunks)
    assert everything == total
    assert chunks[0] + chunks[1:] == total


def test_one_chunk_summed_with_two_continuations_gives_each_its_own_arguments() -> None:
    head = '{"xs": [' + ", ".join(str(i) for i in range(100)) + ", "
    start = functools.reduce(operator.add, _arg_chunks([head[:40], head[40:]]))
    assert start.tool_calls[0]["args"] == {"xs": list(range(100))}
    left = start + _arg_chunks(["x", '"L", "M"'])[1]
    right = start + _arg_chunks(["x", '"R", "S"'])[1]
    again = start + _arg_chunks(["x", '"L", "M"'])[1]
    assert left.tool_calls[0]["args"] == {"xs": [*range(100), "L", "M"]}
    assert right.tool_calls[0]["args"] == {"xs": [*range(100), "R", "S"]}
    assert again == left
    assert (left + _arg_chunks(["x", ', "N"]}'])[1]).tool_calls[0]["args"] == {
        "xs": [*range(100), "L", "M", "N"]
    }
    assert start.tool_calls[0]["args"] == {"xs": list(range(100))}
    last = right + AIMessageChunk("", chunk_position="last")
    assert last.invalid_tool_calls[0]["error"] is not None
    assert last.tool_calls == []
