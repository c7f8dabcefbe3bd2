"""JsonOutputParser streams snapshots: a value it yielded never changes as the stream goes on.

Each chunk is read once and the finished parts of successive values are shared, so these
check, for any JSON text (fenced or not) and any chunking, that the stream ends with
``json.loads``'s value and that every value yielded before reads, once the stream has ended,
exactly as it did when it was yielded.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from leanchain.messages import AIMessageChunk
from leanchain.output_parsers import JsonOutputParser

SPACE = st.sampled_from(["", " ", "\n  "])
KEYS = st.sampled_from(['"a"', '"b"', '"k\\u00e9"', '"q\\""', '""'])
SCALARS = st.one_of(
    st.sampled_from(["null", "true", "false", "0", "-1.5e3", '"x"', '"caf\\u00e9 \\"q\\""']),
    st.integers(-(10**6), 10**6).map(str),
    st.text(max_size=6).map(json.dumps),
)


def _array(items: list[str], space: str) -> str:
    return "[" + space + ("," + space).join(items) + space + "]"


def _object(pairs: list[tuple[str, str]], space: str) -> str:
    members = (f"{key}{space}:{space}{value}" for key, value in pairs)
    return "{" + space + ("," + space).join(members) + space + "}"


def _containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(_array, st.lists(inner, max_size=4), SPACE) | st.builds(
        _object, st.lists(st.tuples(KEYS, inner), max_size=4), SPACE
    )


CONTAINERS = _containers(st.recursive(SCALARS, _containers, max_leaves=12))
"""A JSON array or object as text, keys often repeated (the last value wins)."""
REPLIES = st.tuples(
    CONTAINERS, st.sampled_from(["{}", "```json\n{}\n```", "Here:\n```\n{}\n``` done", " {} \n"])
)


def split(text: str, cuts: list[int]) -> list[str]:
    """`text` cut at the given points, no piece empty."""
    points = sorted({min(c, len(text)) for c in cuts} - {0, len(text)})
    edges = [0, *points, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]


def check_snapshots(yielded: list[tuple[Any, Any]], expected: Any) -> None:
    assert yielded
    assert repr(yielded[-1][0]) == repr(expected)
    for value, as_yielded in yielded:
        assert repr(value) == repr(as_yielded)  # repr: key order and 1 against 1.0 count


@settings(max_examples=300, deadline=None)
@given(REPLIES, st.lists(st.integers(0, 150), max_size=14), st.booleans())
def test_property_yielded_values_never_change_afterwards(
    reply: tuple[str, str], cuts: list[int], as_messages: bool
) -> None:
    text, template = reply
    assume("```" not in text or "```" not in template)  # a fence ends at the next backticks
    whole = template.replace("{}", text)
    pieces: list[Any] = split(whole, cuts)
    if as_messages:
        pieces = [AIMessageChunk(p) for p in pieces]
    yielded = [(v, copy.deepcopy(v)) for v in JsonOutputParser().transform(iter(pieces))]
    check_snapshots(yielded, json.loads(text))


@settings(max_examples=100, deadline=None)
@given(CONTAINERS, st.lists(st.integers(0, 150), max_size=14))
async def test_property_async_stream_yields_snapshots_too(text: str, cuts: list[int]) -> None:
    async def chunks() -> AsyncIterator[str]:
        for piece in split(text, cuts):
            yield piece

    yielded = [(v, copy.deepcopy(v)) async for v in JsonOutputParser().atransform(chunks())]
    check_snapshots(yielded, json.loads(text))


def test_a_consumer_changing_a_yielded_value_does_not_change_the_next_one() -> None:
    text = '{"records": [{"id": 1}, {"id": 2}, {"id": 3}], "tags": ["a", "b"]}'
    values = []
    for value in JsonOutputParser().transform(iter(text)):
        values.append(copy.deepcopy(value))
        value["mine"] = True  # the value itself is new each time (its finished parts are not)
    assert values[-1] == json.loads(text)
    assert all("mine" not in json.dumps(v) for v in values)
