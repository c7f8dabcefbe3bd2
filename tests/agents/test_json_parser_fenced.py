"""`JSONAgentOutputParser` reads the usual fenced reply in one scan, as the general read does.

The general read is ``parse_json_markdown(text, parser=parse_complete_json)`` and then the
decision; the fenced read (`_fenced`) scans the blob in place. Every reply, well-formed or not,
gives the same decision or the same error with the same cause.
"""

from __future__ import annotations

import json
from typing import Any
from unittest.mock import patch

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_parsers_property import JSON_TEXT, JSON_VALUES, json_blobs

from leanchain.agents import AgentAction
from leanchain.agents.output_parsers import JSONAgentOutputParser
from leanchain.agents.output_parsers import json as json_parser
from leanchain.agents.output_parsers.json import _NOT_FENCED, _fenced
from leanchain.errors import OutputParserException

SETTINGS = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARSER = JSONAgentOutputParser()
PIECES = st.sampled_from(["", "\n", " ", "\n\n", "`", "```", "\n```", "Action:", " x", "{}"])


def general(text: str) -> Any:
    """What the parser gave before the fenced read: the general path, value or error."""
    with patch.object(json_parser, "_fenced", lambda text: _NOT_FENCED):
        return parsed(text)


def parsed(text: str) -> Any:
    try:
        return PARSER.parse(text)
    except OutputParserException as e:
        return ("error", str(e), type(e.__cause__), str(e.__cause__))


@st.composite
def fenced_replies(draw: st.DrawFn) -> str:
    """A fenced reply as models write it, with every seam varied (and a fence in the blob)."""
    blob: dict[str, Any] = {}
    if draw(st.booleans()):
        blob["action"] = draw(st.sampled_from(["Final Answer", "echo", "a```b", 3]))
    if draw(st.booleans()):
        blob["action_input"] = draw(st.one_of(JSON_VALUES, st.just("```"), st.just({"q": "```"})))
    value: Any = [blob] if draw(st.integers(0, 5)) == 0 else blob
    body = json.dumps(value, indent=draw(st.sampled_from([None, 2])))
    if draw(st.integers(0, 5)) == 0:
        body = body[: draw(st.integers(0, len(body)))]
    opening = draw(st.sampled_from(["```", "```json", "```JSON", "``` "]))
    return (
        draw(PIECES)
        + opening
        + draw(PIECES)
        + body
        + draw(PIECES)
        + draw(st.sampled_from(["```", "", "\n```\n", "``"]))
        + draw(PIECES)
    )


@SETTINGS
@given(st.one_of(fenced_replies(), json_blobs(), JSON_TEXT, st.text()))
def test_the_parser_gives_what_the_general_read_gives(text: str) -> None:
    assert parsed(text) == general(text)


def test_the_usual_replies_take_the_fenced_read() -> None:
    call = 'Action:\n```\n{"action": "echo", "action_input": {"text": "hi"}}\n```'
    assert _fenced(call) == {"action": "echo", "action_input": {"text": "hi"}}
    assert _fenced('```json\n{"action": "Final Answer", "action_input": "42"}\n```') == {
        "action": "Final Answer",
        "action_input": "42",
    }
    # A fence inside the blob closes the general read's block early: not read in one scan.
    assert _fenced('```\n{"action": "a```b"}\n```') is _NOT_FENCED
    assert _fenced(' \n```\n{"action": "echo"}\n```') is _NOT_FENCED
    assert _fenced('{"action": "echo"}') is _NOT_FENCED


def test_a_missing_or_null_action_input_is_a_new_empty_dict_every_time() -> None:
    for text in (
        '{"action": "s"}',
        '{"action": "s", "action_input": null}',
        '```\n{"action": "s"}\n```',
    ):
        first, second = PARSER.parse(text), PARSER.parse(text)
        assert first == second == AgentAction("s", {}, text)
        assert first.tool_input is not second.tool_input  # type: ignore[union-attr]
