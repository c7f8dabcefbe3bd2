"""The partial-JSON parser: exact values, the documented error, and its properties."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain._partial_json import (
    MAX_DEPTH,
    JsonPrefixScan,
    parse_json_markdown,
    parse_partial_json,
)

# Texts that are a prefix of JSON but hold no value yet: the one case of a valid prefix that
# raises (a top-level scalar that has not started, or cannot be completed yet).
NO_VALUE_YET = {"", "-", "t", "tr", "tru", "f", "fa", "fal", "fals", "n", "nu", "nul"}

CORPUS = [
    '{"a": 1, "b": [true, false, null], "c": {"d": "e\\"f\\\\g\\n\\u00e9\\ud83d\\ude00/"}}',
    '[1, -2.5e+10, 0, -0.0, 1E-3, 10, "x", [], {}, [[]], {"k": {}}, 123456789012345678901]',
    '"a string with \\t escapes, unicode \u00e9 \U0001f600 and \\u20AC"',
    '{"nested": {"deep": [{"x": [1, {"y": null}]}]}, "empty": "", "sp": " , : [ ] { } \\" "}',
    '  {"ws" :\n [ 1 ,\t2 ] ,"raw\u00e9": "caf\u00e9"}  ',
    '{"a": {"b": {"c": {"d": [[[["deep"]]]]}}}, "e": [{"f": 1}, {"g": [2, 3]}]}',
    "123",
    "-0.5e-7",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    '""',
]


def outcome(text: str) -> tuple[str, Any]:
    """("ok", value) or ("error", None); any other exception propagates and fails the test."""
    try:
        return "ok", parse_partial_json(text)
    except json.JSONDecodeError:
        return "error", None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "b": "unfinished', {"a": 1, "b": "unfinished"}),
        ("[1,", [1]),
        ("[1, 2.", [1, 2]),
        ("[1, 2e+", [1, 2]),
        ("[-", []),
        ("[1, -", [1]),
        ("[tr", []),
        ("[1, fals", [1]),
        ("[true", [True]),
        ("[null, nul", [None]),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b"', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ('{"a": 1, "b": ', {"a": 1}),
        ('{"a": 1, "b": t', {"a": 1}),
        ('{"a": 1,', {"a": 1}),
        ('{"a": 12', {"a": 12}),
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": "x\\u00e9', {"a": "x\u00e9"}),
        ('{"a": "x\\ud83d', {"a": "x"}),
        ('{"a": "x\\ud83d\\ude', {"a": "x"}),
        ('{"a": "x\\ud83d\\ude00', {"a": "x\U0001f600"}),
        ('{"a": "x\\\\', {"a": "x\\"}),
        ('{"a": "new\nline', {"a": "new\nline"}),
        ("{", {}),
        ("[", []),
        ('"abc', "abc"),
        ("12.", 12),
        ('[{"a": [1, {"b": nul', [{"a": [1, {}]}]),
        ('{"a": [1, 2], "b": {"c": [3, ', {"a": [1, 2], "b": {"c": [3]}}),
        ('{"k": "v", "k": "w', {"k": "w"}),
        ('  {"a" : 1 , ', {"a": 1}),
        ('{"a": 1}', {"a": 1}),
    ],
)
def test_prefix_values(text: str, expected: Any) -> None:
    assert parse_partial_json(text) == expected


def test_nan_and_infinity_are_accepted_like_json_loads() -> None:
    assert repr(parse_partial_json("[NaN, Infinity, -Infinity")) == "[nan, inf, -inf]"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Expecting value: line 1 column 1 (char 0)"),
        ("   ", "Expecting value: line 1 column 1 (char 0)"),
        ("-", "Expecting value: line 1 column 1 (char 0)"),
        ("tr", "Expecting value: line 1 column 1 (char 0)"),
        ("[}", "Unexpected '}': expected ']': line 1 column 2 (char 1)"),
        ("]", "Unexpected ']': nothing is open: line 1 column 1 (char 0)"),
        ('{"a": 1}}', "Unexpected '}': nothing is open: line 1 column 9 (char 8)"),
        ("[1 2", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
        ('{"a",', "Expecting ':' delimiter: line 1 column 5 (char 4)"),
        ("[,", "Expecting value: line 1 column 2 (char 1)"),
        ("[1,,", "Expecting value: line 1 column 4 (char 3)"),
        ("[1 [2", "Expecting ',' delimiter: line 1 column 2 (char 1)"),
        ('{"a" [1', "Expecting property name: line 1 column 2 (char 1)"),
        ('{"a\\x', "Invalid \\escape: line 1 column 4 (char 3)"),
        ('{"a": "\\q', "Invalid \\escape: line 1 column 8 (char 7)"),
        ('{"a": 1} x', "Extra data: line 1 column 10 (char 9)"),
        ("[1] [2", "Extra data: line 1 column 1 (char 0)"),
        ("[1 t", "Expecting ',' delimiter: line 1 column 4 (char 3)"),
        ("01", "Extra data: line 1 column 2 (char 1)"),
        ("[01", "Expecting ',' delimiter: line 1 column 3 (char 2)"),
        ("[1.e", "Expecting ',' delimiter: line 1 column 3 (char 2)"),
        ("[t ", "Expecting value: line 1 column 2 (char 1)"),
        ("hello", "Expecting value: line 1 column 1 (char 0)"),
    ],
)
def test_not_a_prefix_raises_json_decode_error(text: str, message: str) -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        parse_partial_json(text)
    assert str(info.value) == message


def test_strict_rejects_control_characters_in_strings() -> None:
    assert parse_partial_json('{"a": "x\ty"}') == {"a": "x\ty"}
    with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
        parse_partial_json('{"a": "x\ty"}', strict=True)
    with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
        parse_partial_json('{"a": "x\ty', strict=True)


def test_deep_nesting_raises_the_documented_error() -> None:
    deep = "[" * (MAX_DEPTH + 1)
    with pytest.raises(json.JSONDecodeError, match="Nesting deeper than 1000 levels"):
        parse_partial_json(deep)
    closed = "[" * 5000 + "]" * 5000
    with pytest.raises(json.JSONDecodeError):
        parse_partial_json(closed)
    assert parse_partial_json("[" * 50) == _nested(50)


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_large_inputs_parse() -> None:
    big_string = '{"text": "' + "abc\\n" * 250_000
    assert parse_partial_json(big_string) == {"text": "abc\n" * 250_000}
    big_array = "[" + "1, " * 300_000
    assert parse_partial_json(big_array) == [1] * 300_000
    many_objects = '{"xs": [' + '{"k": [1, "a"]}, ' * 50_000
    assert parse_partial_json(many_objects) == {"xs": [{"k": [1, "a"]}] * 50_000}


@pytest.mark.parametrize("text", CORPUS)
def test_every_prefix_of_the_corpus(text: str) -> None:
    assert parse_partial_json(text) == json.loads(text)
    for end in range(len(text) + 1):
        prefix = text[:end]
        kind, _ = outcome(prefix)
        assert kind == "ok" or prefix.strip() in NO_VALUE_YET, prefix


def test_prefixes_of_an_object_keep_only_finished_keys() -> None:
    text = CORPUS[0]
    final = json.loads(text)
    for end in range(1, len(text) + 1):
        partial = parse_partial_json(text[:end])
        assert isinstance(partial, dict)
        assert set(partial) <= set(final)
        keys = list(partial)
        assert keys == list(final)[: len(keys)]
        for key in keys[:-1]:
            assert partial[key] == final[key]


def test_incremental_scan_matches_one_shot() -> None:
    text = CORPUS[5]
    scan: JsonPrefixScan | None = None
    for end in range(1, len(text) + 1):
        scan = JsonPrefixScan.of(text[:end], scan)
        assert scan.parse(text[:end]) == parse_partial_json(text[:end])


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    value = draw(json_values)
    return json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, 0, 2])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    )


@settings(max_examples=150, deadline=None)
@given(json_texts())
def test_property_every_prefix_parses_and_the_whole_equals_json_loads(text: str) -> None:
    assert parse_partial_json(text) == json.loads(text)
    for end in range(len(text)):
        kind, _ = outcome(text[:end])
        assert kind == "ok" or text[:end].strip() in NO_VALUE_YET


@settings(max_examples=150, deadline=None)
@given(json_texts(), st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_property_resumed_scans_match_one_shot(text: str, cuts: list[int]) -> None:
    scan: JsonPrefixScan | None = None
    for end in sorted({min(c, len(text)) for c in cuts} | {len(text)}):
        prefix = text[:end]
        try:
            scan = JsonPrefixScan.of(prefix, scan)
        except json.JSONDecodeError:
            pytest.fail(f"valid prefix {prefix!r} rejected by the scanner")
        try:
            resumed: tuple[str, Any] = ("ok", scan.parse(prefix))
        except json.JSONDecodeError:
            resumed = ("error", None)
        assert resumed == outcome(prefix)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_property_any_text_gives_a_value_or_the_documented_error(text: str) -> None:
    outcome(text)


JSONISH = st.text(alphabet='[]{}",:0123456789 .-+eEtrufalsn\\u\n', max_size=24)


@settings(max_examples=1500, deadline=None)
@given(JSONISH)
def test_property_raises_exactly_for_text_that_is_not_a_json_prefix(text: str) -> None:
    kind, _ = outcome(text)
    if is_json_prefix(text):
        assert kind == "ok" or text.strip() in NO_VALUE_YET
    else:
        assert kind == "error"


class _Incomplete(Exception):
    pass


class _Invalid(Exception):
    pass


def is_json_prefix(s: str) -> bool:
    """An independent, character-level answer to "can this text be continued into JSON?"."""
    pos = 0

    def peek() -> str:
        if pos >= len(s):
            raise _Incomplete
        return s[pos]

    def skip_ws() -> None:
        nonlocal pos
        while pos < len(s) and s[pos] in " \t\n\r":
            pos += 1

    def expect(chars: str) -> None:
        nonlocal pos
        for char in chars:
            if peek() != char:
                raise _Invalid
            pos += 1

    def digits() -> None:
        nonlocal pos
        if not peek().isdigit():
            raise _Invalid
        while pos < len(s) and s[pos] in "0123456789":
            pos += 1

    def number() -> None:
        nonlocal pos
        if peek() == "-":
            pos += 1
        if peek() == "0":
            pos += 1
        else:
            digits()
        if pos < len(s) and s[pos] == ".":
            pos += 1
            digits()
        if pos < len(s) and s[pos] in "eE":
            pos += 1
            if peek() in "+-":
                pos += 1
            digits()
        if pos == len(s):
            raise _Incomplete

    def string() -> None:
        nonlocal pos
        pos += 1
        while (char := peek()) != '"':
            pos += 1
            if char == "\\":
                escape = peek()
                pos += 1
                if escape == "u":
                    for _ in range(4):
                        if peek() not in "0123456789abcdefABCDEF":
                            raise _Invalid
                        pos += 1
                elif escape not in '"\\/bfnrt':
                    raise _Invalid
        pos += 1

    def members(close: str, member: Any) -> None:
        nonlocal pos
        pos += 1
        skip_ws()
        if peek() == close:
            pos += 1
            return
        while True:
            skip_ws()
            member()
            skip_ws()
            char = peek()
            pos += 1
            if char == close:
                return
            if char != ",":
                raise _Invalid

    def pair() -> None:
        if peek() != '"':
            raise _Invalid
        string()
        skip_ws()
        expect(":")
        skip_ws()
        value()

    def value() -> None:
        char = peek()
        if char == "{":
            members("}", pair)
        elif char == "[":
            members("]", value)
        elif char == '"':
            string()
        elif char in "tfn":
            expect({"t": "true", "f": "false", "n": "null"}[char])
        elif char == "-" or char.isdigit():
            number()
        else:
            raise _Invalid

    try:
        skip_ws()
        value()
        skip_ws()
    except _Incomplete:
        return True
    except _Invalid:
        return False
    return pos == len(s)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Here you go:\n```json\n{"a": [1, 2]}\n```\nAnything else?', {"a": [1, 2]}),
        ('```json\n{"a": "stream', {"a": "stream"}),
        ('```json{"a": 1}```', {"a": 1}),
        ('  `{"a": 1}`  ', {"a": 1}),
        (
            '{"action": "s", "action_input": "unterminated',
            {"action": "s", "action_input": "unterminated"},
        ),
    ],
)
def test_parse_json_markdown(text: str, expected: Any) -> None:
    assert parse_json_markdown(text) == expected


def test_parse_json_markdown_without_json_raises() -> None:
    with pytest.raises(json.JSONDecodeError):
        parse_json_markdown("no json here")
    with pytest.raises(json.JSONDecodeError):
        parse_json_markdown("```\nnot json\n```")


def test_parse_json_markdown_with_a_strict_parser() -> None:
    assert parse_json_markdown('```json\n{"a": 1}\n```', parser=json.loads) == {"a": 1}
    with pytest.raises(json.JSONDecodeError):
        parse_json_markdown('```json\n{"a": 1', parser=json.loads)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('```json\n{"a": 1}\n```\nCall `f` with ```x``` next time.', {"a": 1}),
        ('{"a": 1} was wrong, use:\n```json\n{"b": 2}\n```\nThat is all.', {"b": 2}),
        ("3 results:\n```json\n[1, 2, 3]\n```\nDone.", [1, 2, 3]),
        ('```json\n{"a": "stream', {"a": "stream"}),
    ],
    ids=["prose-after", "json-like-prose-before", "number-prose-before", "still-streaming"],
)
def test_parse_json_markdown_fenced_json_followed_by_prose(text: str, expected: Any) -> None:
    assert parse_json_markdown(text) == expected


def _fence_by_regex(text: str, parser: Any) -> Any:
    """The reference reading (the former implementation): whole text, then a lazy regex."""
    try:
        return parser(text.strip(" \n\r\t`"))
    except json.JSONDecodeError:
        match = re.search(r"```(?:json)?(.*?)(?:```|\Z)", text, re.DOTALL)
        if match is None:
            raise
    return parser(match.group(1).strip(" \n\r\t`"))


MARKDOWNISH = st.lists(
    st.sampled_from(
        [
            *("```", "```json", "`", "json", "\n", " ", "\t", "Here:", "x"),
            *('{"a": ', "[1, ", "]", "}", "{", ",", '"s', '"', "-", "3"),
            *("t", "true", "N", "NaN", "I", "Infinity"),
        ]
    ),
    max_size=14,
).map("".join)


@settings(max_examples=1500, deadline=None)
@given(MARKDOWNISH | st.text(max_size=40), st.sampled_from([parse_partial_json, json.loads]))
def test_parse_json_markdown_reads_as_the_regex_did(text: str, parser: Any) -> None:
    def outcome(read: Any) -> Any:
        try:
            return ("value", json.dumps(read(text, parser), sort_keys=True))
        except json.JSONDecodeError as exc:
            return ("error", exc.msg, exc.doc, exc.pos)

    assert outcome(lambda t, p: parse_json_markdown(t, parser=p)) == outcome(_fence_by_regex)


# -- resumed scans read open strings piece by piece ---------------------------------------------

STRINGY = st.lists(
    st.sampled_from(
        [
            '"',
            "\\",
            '\\"',
            "\\\\",
            "\\n",
            "\\u",
            "\\u00e9",
            "\\ud83d",
            "\\ude00",
            "\\ud800\\",
            "\ud83d",
            "\\x",
            "\x01",
            "\n",
            "é",
            "\U0001f600",
            "ab",
            " ",
            "[",
            "]",
            "{",
            "}",
            ",",
            ":",
            '"k": ',
            "1",
        ]
    ),
    max_size=24,
).map("".join)


def full_outcome(read: Any, text: str) -> tuple[str, str | None]:
    """("ok", repr of the value: ``1`` differs from ``1.0``) or ("error", None)."""
    try:
        return "ok", repr(read(text))
    except json.JSONDecodeError:
        return "error", None


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(['"', '["', '{"a": "', '[1, {"k": ["x", "', "  "]).flatmap(
        lambda head: STRINGY.map(lambda body: head + body)
    ),
    st.booleans(),
)
def test_property_resumed_scans_read_strings_as_one_shot_parsing_does(
    text: str, strict: bool
) -> None:
    scan: JsonPrefixScan | None = None
    for end in range(len(text) + 1):
        prefix = text[:end]
        try:
            scan = JsonPrefixScan.of(prefix, scan)
        except json.JSONDecodeError:
            return  # no longer a prefix of JSON: nothing to resume from
        resumed = full_outcome(lambda t: scan.parse(t, strict=strict), prefix)  # noqa: B023
        assert resumed == full_outcome(lambda t: parse_partial_json(t, strict=strict), prefix)


def test_a_long_string_streamed_is_decoded_piece_by_piece() -> None:
    body = 'lorem \\"ipsum\\" \\u00e9\\ud83d\\ude00 \\\\ ' * 40
    text = '{"answer": "' + body + '"}'
    scan: JsonPrefixScan | None = None
    for end in range(1, len(text) + 1):
        scan = JsonPrefixScan.of(text[:end], scan)
        assert scan.parse(text[:end]) == parse_partial_json(text[:end])
    assert scan is not None
    assert scan.parse(text) == json.loads(text)


@pytest.mark.parametrize("run", [1, 2, 63, 64, 65, 200])
def test_long_runs_of_backslashes_and_whitespace_are_measured_whole(run: int) -> None:
    assert parse_partial_json('["' + "\\\\" * run + "\\") == ["\\" * run]
    assert parse_partial_json('["' + "\\\\" * run) == ["\\" * run]
    assert parse_partial_json('{"a": 1,' + " " * run + '"b') == {"a": 1}
    assert parse_partial_json("[1," + "\n" * run) == [1]
