"""What the console trace writes about a value: one line of text, and an agent's thought."""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["duration", "plain", "thought", "tokens", "usage"]


def duration(seconds: float) -> str:
    """``"12.3 ms"`` under a second, ``"1.23 s"`` from one second on."""
    if seconds < 1.0:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def _message_text(message: Any) -> str:
    """``role: 'text'``, followed by the tool calls the message makes."""
    kind = str(getattr(message, "type", type(message).__name__))
    if kind.endswith("MessageChunk"):
        kind = kind[: -len("MessageChunk")].lower()
    text = getattr(message, "text", None)
    if not isinstance(text, str):
        text = str(message.content)
    calls = [f"{c.get('name')}({c.get('args')!r})" for c in getattr(message, "tool_calls", ())]
    said = [repr(text)] if text or not calls else []
    return f"{kind}: {' '.join(said + calls)}"


def plain(value: Any) -> str:
    """One line saying what `value` is; messages and prompts as ``role: text``."""
    if isinstance(value, str):
        return repr(value)
    if hasattr(value, "to_messages"):
        value = value.to_messages()
    if hasattr(value, "content") and hasattr(value, "type"):
        return _message_text(value)
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        value = [m for batch in value for m in batch]
    if isinstance(value, list) and value and all(hasattr(v, "content") for v in value):
        return "[" + " | ".join(_message_text(m) for m in value) + "]"
    return repr(value)


def tokens(response: Any) -> tuple[int, int] | None:
    """``(input, output)`` tokens from a chat model's `LLMResult`, when the model said."""
    generations = getattr(response, "generations", None)
    if not generations or not generations[0]:
        return None
    used = getattr(generations[0][0].message, "usage_metadata", None)
    if not used:
        return None
    return int(used.get("input_tokens", 0)), int(used.get("output_tokens", 0))


def usage(counts: tuple[int, int]) -> str:
    """``"<in> in / <out> out"``."""
    return f"{counts[0]} in / {counts[1]} out"


_DECISION_START: Final = re.compile(
    r"Action\s*+\d*+\s*+:|Final Answer\s*+:|```|<tool>|<final_answer>|^[ \t]*+[\[{]",
    re.MULTILINE,
)
"""Where a text agent's reply turns from thinking to its decision: a ReAct keyword, a JSON
blob (fenced or bare) or an XML tag."""
_THOUGHT_LABEL: Final = re.compile(r"\s*+Thought\s*+:")


def thought(decision: Any) -> str:
    """What the model wrote before its decision (``""`` when nothing).

    A tool-calling reply's text, or a text agent's log up to its action or final answer,
    without a leading ``Thought:``.
    """
    messages = getattr(decision, "message_log", None)
    if messages:
        text = getattr(messages[-1], "text", "")
        return text.strip() if isinstance(text, str) else ""
    log = getattr(decision, "log", "")
    if not isinstance(log, str):
        return ""
    match = _DECISION_START.search(log)
    text = log[: match.start()] if match is not None else log
    label = _THOUGHT_LABEL.match(text)
    return (text[label.end() :] if label is not None else text).strip()
