"""XMLOutputParser: LangChain's shape and streaming; no DTD, no entity expansion, ever."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.errors import OutputParserException
from leanchain.language_models import ScriptedChatModel
from leanchain.output_parsers import XMLOutputParser

PARSER = XMLOutputParser()
MOVIES = "<movies><movie><title>Up</title><year>2009</year></movie><movie>x</movie></movies>"


def test_shape_matches_langchain() -> None:
    assert PARSER.parse(MOVIES) == {
        "movies": [{"movie": [{"title": "Up"}, {"year": "2009"}]}, {"movie": "x"}]
    }
    assert PARSER.parse("```xml\n<a>1</a>\n```") == {"a": "1"}
    assert PARSER.parse('<?xml version="1.0"?><a b="c">t</a>') == {"a": "t"}
    assert PARSER.parse('<?xml version="1.0" encoding="UTF-8"?>\n<a><b/></a>') == {
        "a": [{"b": None}]
    }
    assert PARSER.parse("<a><!-- note --><![CDATA[<raw> & text]]></a>") == {"a": "<raw> & text"}
    assert PARSER.parse("<a>x &amp; y &lt;z&gt; &#65;&#x42;</a>") == {"a": "x & y <z> AB"}


def test_malformed_xml_names_what_is_wrong() -> None:
    with pytest.raises(OutputParserException) as caught:
        PARSER.parse("<a><b>1</a>")
    assert str(caught.value) == (
        "Failed to parse XML format from completion <a><b>1</a>. Got: mismatched tag </a>, "
        "expected </b>"
    )
    assert caught.value.llm_output == "<a><b>1</a>"
    for text in ["", "plain words", "<a>", "<a>1</a><b/>"]:
        with pytest.raises(OutputParserException):
            PARSER.parse(text)


BILLION_LAUGHS = (
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>'
)
EXTERNAL = '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'


@pytest.mark.parametrize("text", [BILLION_LAUGHS, EXTERNAL])
def test_dtds_and_their_entities_are_refused(text: str) -> None:
    with pytest.raises(OutputParserException) as caught:
        PARSER.parse(text)
    assert "a document type declaration (<!DOCTYPE ...>) is refused" in str(caught.value)
    with pytest.raises(OutputParserException):
        list(PARSER.stream(text))


def test_undefined_entities_are_never_expanded() -> None:
    with pytest.raises(
        OutputParserException, match=r"undefined entity &lol; \(entities are never expanded\)"
    ):
        PARSER.parse("<a>&lol;</a>")


def test_nesting_depth_is_capped() -> None:
    with pytest.raises(OutputParserException, match="nest deeper than 100"):
        PARSER.parse("<a>" * 101 + "</a>" * 101)


def test_streaming_yields_each_leaf_with_its_path() -> None:
    chunks = list(PARSER.stream("<movies><movie><title>Up</title></movie></movies>"))
    assert chunks == [{"movies": [{"movie": [{"title": "Up"}]}]}]
    model = ScriptedChatModel([MOVIES], chunking="chars")
    streamed = list((model | PARSER).stream("list movies"))
    assert streamed == [
        {"movies": [{"movie": [{"title": "Up"}]}]},
        {"movies": [{"movie": [{"year": "2009"}]}]},
        {"movies": [{"movie": "x"}]},
    ]
    total: Any = streamed[0]
    for chunk in streamed[1:]:
        total = total + chunk
    assert total == {
        "movies": [{"movie": [{"title": "Up"}]}, {"movie": [{"year": "2009"}]}, {"movie": "x"}]
    }


async def test_async_stream_and_text_before_the_first_tag() -> None:
    chunks = [c async for c in PARSER.astream("Sure! <a><b>&amp;</b></a>")]
    assert chunks == [{"a": [{"b": "&"}]}]


def test_format_instructions_list_the_tags() -> None:
    text = XMLOutputParser(tags=["movies", "movie"]).get_format_instructions()
    assert text.startswith("The output should be formatted as a XML file.\n1. Output should")
    assert text.endswith("Here are the output tags:\n```\n['movies', 'movie']\n```")
    assert PARSER.get_format_instructions().endswith("```\nNone\n```")


@given(st.text(alphabet="<>/ab!&;#?-[]CDAT x", max_size=60))
def test_any_text_gives_a_dict_or_a_parse_error_never_anything_else(text: str) -> None:
    with contextlib.suppress(OutputParserException):
        assert isinstance(PARSER.parse(text), dict)
    try:
        for chunk in PARSER.stream(text):
            assert isinstance(chunk, dict)
    except OutputParserException:
        pass
