"""The complete-JSON reader calls json's scanner directly: always what ``decode`` gives.

`leanchain._partial_json._decode.DECODERS` reads a text that is exactly one JSON value with
the decoder's scanner alone, and hands every other text to the decoder's ``decode``. These
tests pin the reader to ``json.JSONDecoder(strict=...).decode`` on any text: the same value
(of the same types), or the same error, chained to what ``decode``'s own is chained to.
"""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain._partial_json import parse_complete_json
from leanchain._partial_json._decode import DECODERS

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=8,
)
PADDING = st.sampled_from(["", " ", "\n", "\t ", "x", ",", "}", "\x00"])


def _seen(value: Any) -> Any:
    """`value` with the types of its parts (``1``, ``1.0`` and ``True`` told apart)."""
    if isinstance(value, dict):
        return ("dict", [(key, _seen(item)) for key, item in value.items()])
    if isinstance(value, list):
        return ("list", [_seen(item) for item in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, repr(value))


def _outcome(read: Any, text: str) -> Any:
    try:
        return ("value", _seen(read(text)))
    except Exception as exc:
        chained = (repr(exc.__context__), repr(exc.__cause__), exc.__suppress_context__)
        return ("error", type(exc).__name__, str(exc), getattr(exc, "pos", None), chained)


@st.composite
def texts(draw: st.DrawFn) -> str:
    body = json.dumps(draw(JSON_VALUES), ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        cut = draw(st.integers(0, len(body)))
        body = body[:cut] if draw(st.booleans()) else body[:cut] + "\n" + body[cut:]
    return draw(PADDING) + body + draw(PADDING)


@settings(max_examples=500, deadline=None)
@given(st.one_of(texts(), st.text(max_size=12)), st.booleans())
def test_the_reader_is_the_decoders_decode(text: str, strict: bool) -> None:
    assert _outcome(DECODERS[strict], text) == _outcome(
        json.JSONDecoder(strict=strict).decode, text
    )


def test_a_reader_error_is_the_decoders_own() -> None:
    for text in ["", " ", '{"a": 1} x', '{"a": tr', "[1,]"]:
        assert _outcome(parse_complete_json, text)[0] == "error"
    assert _outcome(parse_complete_json, '{"a": 1} x') == (
        "error",
        "JSONDecodeError",
        "Extra data: line 1 column 10 (char 9)",
        9,
        ("None", "None", False),
    )
    assert parse_complete_json(' {"a": [1, 2.0]}\n') == {"a": [1, 2.0]}
