"""Read JSON that may be cut off anywhere: the value a stream of JSON text holds so far.

``parse_partial_json`` closes whatever the text left open (strings, arrays, objects) and drops
what cannot be completed yet (a key without its value, a trailing comma, a half-written
``true``), with no backtracking: the text is scanned once for its brackets, commas and
strings, and the elements of each open container are decoded by :mod:`json`'s C decoder.
A :class:`JsonPrefixScan` kept between calls makes a growing text cost only its new part.

Semantics (LangChain's ``parse_partial_json`` where it is sound, stricter where it is not):

- A complete JSON text gives exactly what ``json.loads(text, strict=False)`` gives.
- A prefix of a JSON text gives the value it holds so far: ``'{"a": 1, "b": "unfin'`` gives
  ``{"a": 1, "b": "unfin"}``, ``'[1, 2.'`` gives ``[1, 2]``, ``'{"a": tr'`` gives ``{}``.
  Numbers are kept as far as they are valid (``12`` may still become ``123``); a string cut
  inside an escape keeps its text before the escape, and a string cut right after the first
  half of a surrogate pair drops that half until the second arrives.
- Anything else raises :class:`json.JSONDecodeError` (a :class:`ValueError`): text that no
  continuation can make valid (``'[1 2'``, ``'{"a",'``, ``'[}'``), and text that holds no value
  yet (``''``, whitespace, a lone ``-`` or ``t``). leanchain never answers ``None`` for "not
  JSON" (LangChain does, for mismatched brackets), and never raises anything else, nesting
  beyond :data:`MAX_DEPTH` levels included.

The modules, one idea each: ``_decode`` reads complete JSON text with one exception type,
``_cut`` decides where a prefix is cut back to what can be completed, ``_scan`` scans a
prefix once (resumably) and assembles its value, ``_markdown`` finds JSON in a fenced reply.
"""

from __future__ import annotations

from ._decode import MAX_DEPTH, SCAN_LENIENT, TOO_DEEP, parse_complete_json
from ._markdown import JSON_STARTS, MARKDOWN_STRIP, parse_json_markdown
from ._scan import JsonPrefixScan, parse_partial_json

__all__ = [
    "JSON_STARTS",
    "MARKDOWN_STRIP",
    "MAX_DEPTH",
    "SCAN_LENIENT",
    "TOO_DEEP",
    "JsonPrefixScan",
    "parse_complete_json",
    "parse_json_markdown",
    "parse_partial_json",
]
