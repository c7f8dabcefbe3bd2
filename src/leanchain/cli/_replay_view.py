"""What ``leanchain replay`` prints: a recorded run (a cassette), round by round.

Each round is one model call: what was new in its prompt (the observations — tool results —
and any other new message; the first round shows its whole prompt), then the reply: its text,
its tool calls and its usage. Long texts are cut; ``--round N`` prints round N's full prompt,
every message whole, with the tools offered, the stop sequences and the reply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from leanchain.cli._errors import CliError
from leanchain.messages import BaseMessage, ToolMessage
from leanchain.testing import CassetteEntry, CassetteFormatError
from leanchain.testing.cassettes import load_entries, message_from_data
from leanchain.testing.transcript import (
    header,
    message_lines,
    prompt_lines,
    shorten,
    tool_names,
    usage_line,
)

__all__ = ["full_round", "load_rounds", "rounds"]

LIMIT: Final = 300
"""Characters of a message's text shown in the round-by-round view."""
_INDENT: Final = "  "


def load_rounds(path: Path) -> tuple[list[CassetteEntry], list[list[BaseMessage]]]:
    """The cassette's entries and each one's prompt as messages.

    Raises:
        CliError: the file is missing or is not a cassette.
    """
    try:
        entries = load_entries(path)
        return entries, [_messages(entry, i) for i, entry in enumerate(entries)]
    except (FileNotFoundError, CassetteFormatError) as exc:
        raise CliError(str(exc)) from None


def _messages(entry: CassetteEntry, index: int) -> list[BaseMessage]:
    where = f"cassette entry {index + 1} request message"
    return [
        message_from_data(m, f"{where} {j + 1}") for j, m in enumerate(entry.request["messages"])
    ]


def _count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _title(entries: list[CassetteEntry], index: int, *, of: bool = False) -> str:
    entry = entries[index]
    params = entry.request.get("model", {}).get("params", {})
    name = params.get("model_name") or params.get("model") if isinstance(params, dict) else None
    model = f"{entry.model} ({name})" if name else entry.model
    number = f"{index + 1} of {len(entries)}" if of else f"{index + 1}"
    return f"=== Round {number} · {entry.call} · {model} ==="


def rounds(path: Path, entries: list[CassetteEntry], prompts: list[list[BaseMessage]]) -> list[str]:
    lines = [f"{path}: {_count(len(entries), 'round')}"]
    for index, entry in enumerate(entries):
        messages = prompts[index]
        new = _new_messages(entries, prompts, index)
        names = tool_names(entry.request.get("tools"))
        about = [_count(len(messages), "message")]
        if index and len(new) < len(messages):
            about.append(f"{len(new)} new")
        if names:
            about.append(f"tools: {', '.join(names)}")
        lines += ["", _title(entries, index), f"prompt ({'; '.join(about)}):"]
        observations = [m for m, _ in new if isinstance(m, ToolMessage)]
        for message, tail in new:
            if isinstance(message, ToolMessage):
                continue
            if tail is None:
                lines += [_INDENT + line for line in message_lines(message, LIMIT)]
                continue
            first, *rest = shorten(tail, LIMIT).split("\n")
            lines += [_INDENT + header(message) + " continued:", _INDENT + "..." + first]
            lines += [_INDENT + line for line in rest]
        if observations:
            lines.append("observations:")
            for message in observations:
                text = shorten(message.text, LIMIT).replace("\n", "\n" + _INDENT * 2)
                lines.append(f"{_INDENT}{message.name or '?'} {message.tool_call_id}: {text}")
        lines += ["reply:", *_reply_lines(entry, LIMIT)]
    return lines


def _reply_lines(entry: CassetteEntry, limit: int | None) -> list[str]:
    reply = entry.reply
    if reply is None:  # a hand-written cassette may hold only chunks
        return [_INDENT + "(chunks only)"]
    lines = [_INDENT + line for line in message_lines(reply, limit)[1:]] or [_INDENT + "(empty)"]
    usage = usage_line(reply)
    if usage:
        lines.append(_INDENT + usage)
    return lines


def _new_messages(
    entries: list[CassetteEntry], prompts: list[list[BaseMessage]], index: int
) -> list[tuple[BaseMessage, str | None]]:
    """The messages of round `index`'s prompt after what the previous round asked and got.

    Each comes with ``None``, or with the text it adds when it is the previous prompt's
    message grown longer (a text-protocol agent writes its scratchpad into one message).
    """
    messages = prompts[index]
    if index == 0:
        return [(m, None) for m in messages]
    before = prompts[index - 1]
    reply = entries[index - 1].reply
    known = [*before, reply] if reply is not None else before
    shared = 0
    while shared < min(len(known), len(messages)) and _gist(known[shared]) == _gist(
        messages[shared]
    ):
        shared += 1
    new: list[tuple[BaseMessage, str | None]] = [(m, None) for m in messages[shared:]]
    if new and shared < len(before):
        old, grown = before[shared], messages[shared]
        if (
            _kind(old) == _kind(grown)
            and grown.text.startswith(old.text)
            and len(grown.text) > len(old.text)
        ):
            new[0] = (grown, grown.text[len(old.text) :])
    return new


def _kind(message: BaseMessage) -> str:
    kind = message.type
    return kind[: -len("MessageChunk")].lower() if kind.endswith("MessageChunk") else kind


def _gist(message: BaseMessage) -> Any:
    """What makes two messages the same message for a reader: kind, text, tool calls.

    (The reply a round got comes back in the next prompt as a chunk, or without its
    metadata.)
    """
    calls = getattr(message, "tool_calls", None) or []
    return (
        _kind(message),
        message.text,
        [(c["name"], c["args"], c["id"]) for c in calls],
        getattr(message, "tool_call_id", None),
    )


def full_round(
    entries: list[CassetteEntry], prompts: list[list[BaseMessage]], index: int
) -> list[str]:
    entry = entries[index]
    messages = prompts[index]
    lines = [
        _title(entries, index, of=True),
        f"the full prompt ({_count(len(messages), 'message')}):",
    ]
    lines += prompt_lines(messages, entry.request.get("tools"), entry.request.get("stop"))
    lines += ["reply:", *_reply_lines(entry, None)]
    return lines
