"""JSON a model may have wrapped in a markdown code fence: which text to read as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from ._scan import parse_partial_json

__all__ = ["JSON_STARTS", "MARKDOWN_STRIP", "parse_json_markdown"]

MARKDOWN_STRIP: Final = " \n\r\t`"
"""What `parse_json_markdown` strips from both ends of a reply and of a fenced block."""
JSON_STARTS: Final = frozenset('{["-0123456789tfnNI')
"""The characters a JSON text can begin with (:mod:`json` also reads NaN and Infinity)."""


def parse_json_markdown(text: str, *, parser: Callable[[str], Any] = parse_partial_json) -> Any:
    """Parse JSON that a model may have wrapped in a markdown code fence.

    The whole text, stripped of whitespace and backticks, is tried first; if that is not
    JSON, the content of the first ```` ``` ```` (or ```` ```json ````) fence is, up to the
    closing fence or, while a reply is still streaming, the end of the text. When the text
    has a fence and its first character cannot begin a JSON text (prose, ``json`` after the
    backticks), the whole-text attempt is skipped: it could only fail, at the cost of a scan.

    Args:
        text: the model's reply.
        parser: parses the JSON text; the default closes truncated JSON.

    Raises:
        json.JSONDecodeError: neither the text nor its first fenced block is JSON.
    """
    whole = text.strip(MARKDOWN_STRIP)
    fence = text.find("```")
    if fence < 0 or whole[:1] in JSON_STARTS:
        try:
            return parser(whole)
        except json.JSONDecodeError:
            if fence < 0:
                raise
    start = fence + 3
    if text.startswith("json", start):
        start += 4
    end = text.find("```", start)
    return parser((text[start:end] if end >= 0 else text[start:]).strip(MARKDOWN_STRIP))
