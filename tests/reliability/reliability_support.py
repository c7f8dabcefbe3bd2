"""Shared pieces of the reliability tests: example counts, cheap near-valid generators, timing.

No test functions here. The generators build text that is *almost* what a parser wants
(keywords, tags, fences and JSON fragments in every order, cut short or doubled), because
random text rarely reaches the interesting branches of a parser.

They are cheap on purpose: each example is driven by one drawn byte string (`Dice`), read as
a stream of decisions, instead of dozens of separate hypothesis draws; that keeps 5,000
examples to a few seconds, and a failing example still shrinks (towards zero bytes, i.e.
the first choice everywhere).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

T = TypeVar("T")

EXAMPLES: Final = int(os.environ.get("LEANCHAIN_FUZZ_EXAMPLES", "5000"))
"""Examples per property; the issue asks for at least 5,000 (raise it for a nightly run)."""

FUZZ: Final = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""The settings of every bad-input property."""

ADVERSARIAL_BOUND: Final = 10.0
"""CPU seconds a 1 MB adversarial input may take. Linear code needs at most 0.6 s on a quiet
machine and was seen at 2.4 s on a loaded CI machine; quadratic or backtracking code needs
minutes to hours at this size, so only that can fail it."""

MEGABYTE: Final = 1 << 20


def timed(func: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds `func` took, and what it returned or raised (the exception itself)."""
    start = time.perf_counter()
    try:
        result: Any = func()
    except Exception as exc:
        result = exc
    return time.perf_counter() - start, result


def mb(pattern: str) -> str:
    """`pattern` repeated to about one megabyte."""
    return pattern * (MEGABYTE // max(len(pattern), 1))


# -- decisions from one byte string ----------------------------------------------------------


class Dice:
    """Decisions read from a byte string; past its end every decision is the first choice."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def below(self, n: int) -> int:
        """A number in ``range(n)``."""
        if self.pos >= len(self.data):
            return 0
        byte = self.data[self.pos]
        self.pos += 1
        return byte % n

    def coin(self) -> bool:
        """A coin toss."""
        return self.below(2) == 1

    def pick(self, options: Sequence[T]) -> T:
        """One of `options`."""
        return options[self.below(len(options))]

    def char(self) -> str:
        """Any character but a lone surrogate, from ASCII up to the astral planes."""
        plane = self.below(4)
        if plane == 0:
            return chr(self.below(128))
        code = (self.below(256) << 8) | self.below(256)
        if plane == 3:
            code += 0x1F000
        return "\ufffd" if 0xD800 <= code <= 0xDFFF else chr(code)

    def text(self, max_size: int = 6) -> str:
        """Short arbitrary text."""
        return "".join(self.char() for _ in range(self.below(max_size + 1)))

    def glue(self, fragments: Sequence[str], max_size: int = 30) -> str:
        """Fragments (twice as likely), words, whitespace and arbitrary characters, joined."""
        parts = []
        for _ in range(self.below(max_size + 1)):
            kind = self.below(6)
            if kind < 2:
                parts.append(self.pick(fragments))
            elif kind == 2:
                parts.append(self.pick(WORDS))
            elif kind == 3:
                parts.append(self.pick(WHITESPACE))
            else:
                parts.append(self.char())
        return "".join(parts)

    def mangle(self, text: str) -> str:
        """`text` as a careless model might write it: cut short, doubled, or with noise in."""
        how = self.below(6)
        at = self.below(256) * len(text) // 255 if text else 0
        if how == 0:
            return text[:at]
        if how == 1:
            return text + self.pick(WHITESPACE) + text
        if how == 2:
            return text[:at] + self.pick([*WORDS, *WHITESPACE, self.char()]) + text[at:]
        if how == 3:
            return text[:at] + text[at + self.below(8) :]
        return text


DICE: Final = st.binary(max_size=96).map(Dice)
"""One drawn byte string per example."""


def dice(build: Callable[[Dice], T]) -> st.SearchStrategy[T]:
    """A strategy of ``build(dice)`` values."""
    return DICE.map(build)


WHITESPACE: Final = (" ", "  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u2003", "\x0b", "\u2028")
WORDS: Final = ("search", "echo", "x", "hello world", "42", "é", "日本", "🙂", "[[tool]]", "{}", "")


# -- ReAct -----------------------------------------------------------------------------------

REACT_FRAGMENTS: Final = (
    "Thought:",
    "Thought: ",
    "Action:",
    "Action: ",
    "Action 1:",
    "Action\t2 :",
    "Action Input:",
    "Action Input: ",
    "Action 1 Input 1:",
    "Action\n3\nInput\n4\n:",
    "action:",
    "Action Input",
    "Input:",
    "Action",
    ":",
    '"',
    "Final Answer:",
    "Final Answer",
    "Final answer:",
    "\nObservation:",
    "Observation: ",
    "Question:",
    "١",  # an Arabic-Indic digit: \d matches it
    "²",  # a superscript two: \d does not
    "```",
)

# Characters that can form no protocol keyword and no colon, so the expected decision is known.
_PLAIN_CHARS: Final = 'bcdeghijklmnopqrstuvwxyz BCDEGHIJ0123456789_-é日🙂"\t\n.,?!()[]{}<>/\\'


def plain(d: Dice, max_size: int = 10) -> str:
    """Text with no ReAct keyword in it."""
    return "".join(d.pick(_PLAIN_CHARS) for _ in range(d.below(max_size + 1)))


def react_text(d: Dice) -> str:
    """Near-valid ReAct output: keywords in any order, with noise."""
    return d.glue(REACT_FRAGMENTS)


def react_reply(d: Dice) -> tuple[str, Any]:
    """A well-formed ReAct reply and what it must parse to.

    The expectation is ``("action", tool, input)``, ``("finish", answer)`` or ``("both",)`` for
    a reply that carries an action and a final answer (an error by the protocol).
    """
    thought = plain(d)
    number = d.pick(["", " 1", " 2", "\t7", "١"])
    pad = d.pick(["", " ", "  ", "\t", "\n"])
    tool, tool_input, answer = plain(d), plain(d), plain(d)
    if d.coin():
        tool_input = f'"{tool_input}"'
    kind = d.pick(["action", "finish", "both"])
    head = f"Thought: {thought}\n" if d.coin() else thought
    if kind == "finish":
        text = f"{head}\nFinal Answer:{pad}{answer}"
        return text, ("finish", answer.strip())
    text = f"{head}\nAction{number}{pad}:{pad}{tool}\nAction{number} Input{number}{pad}:"
    text += pad + tool_input
    if kind == "both":
        return text + f"\nFinal Answer: {answer}", ("both",)
    spaces = re.match(r"\s*", pad + tool_input)
    assert spaces is not None
    expected_input = (pad + tool_input)[spaces.end() :].strip(" ").strip('"')
    return text, ("action", tool.strip(), expected_input)


# -- XML -------------------------------------------------------------------------------------

XML_NAMES: Final = ("tool", "tool_input", "final_answer", "observation")
XML_FRAGMENTS: Final = (
    *(f"<{name}>" for name in XML_NAMES),
    *(f"</{name}>" for name in XML_NAMES),
    "[[tool]]",
    "[[/tool]]",
    "[[tool_input]]",
    "[[/tool_input]]",
    "[[observation]]",
    "<",
    ">",
    "/",
    "<tool",
    "_input>",
    "</",
    "<final_answer",
    "<![CDATA[",
    "]]>",
    "<!DOCTYPE x [<!ENTITY a 'b'>]>",
    "&a;",
    "&lt;tool&gt;",
)


def xml_text(d: Dice) -> str:
    """Near-valid XML agent output: tags and pieces of tags in any order."""
    return d.glue(XML_FRAGMENTS)


def xml_document(d: Dice) -> str:
    """The protocol tags in every order and nesting: a walk that opens tags, closes the
    innermost one, closes a wrong one, or forgets to close, with text in between."""
    parts: list[str] = []
    open_tags: list[str] = []
    for _ in range(d.below(14)):
        move = d.below(5)
        if move <= 1:
            name = d.pick(XML_NAMES)
            open_tags.append(name)
            parts.append(f"<{name}>")
        elif move == 2 and open_tags:
            parts.append(f"</{open_tags.pop()}>")
        elif move == 3:
            parts.append(f"</{d.pick(XML_NAMES)}>")
        else:
            parts.append(d.pick([*WORDS, *WHITESPACE, d.text(3)]))
    if d.coin():
        parts.extend(f"</{name}>" for name in reversed(open_tags))
    return "".join(parts)


def reference_xml(text: str) -> Any:
    """The XML agent protocol written with regexes (fine on short text): the oracle.

    Returns ``("action", tool, input)``, ``("finish", answer)`` or ``("error", message)``, with
    the ``[[…]]`` escapes undone as ``escape_format="minimal"`` does.
    """

    def blocks(tag: str, open_ended: bool) -> list[str]:
        end = rf"(?:</{tag}>|\Z)" if open_ended else rf"</{tag}>"
        return re.findall(rf"<{tag}>(.*?){end}", text, re.DOTALL)

    def unescape(s: str) -> str:
        for tag in ("tool", "tool_input", "observation"):
            s = s.replace(f"[[{tag}]]", f"<{tag}>").replace(f"[[/{tag}]]", f"</{tag}>")
        return s

    tools = blocks("tool", open_ended=False)
    if len(tools) > 1:
        return (
            "error",
            f"Malformed tool invocation: expected exactly one <tool> block, but found "
            f"{len(tools)}.",
        )
    if tools:
        inputs = blocks("tool_input", open_ended=True)
        if len(inputs) > 1:
            return (
                "error",
                "Malformed tool invocation: expected at most one <tool_input> block, "
                f"but found {len(inputs)}.",
            )
        return ("action", unescape(tools[0]), unescape(inputs[0]) if inputs else "")
    answers = blocks("final_answer", open_ended=True)
    if len(answers) == 1:
        return ("finish", unescape(answers[0]))
    if answers:
        return (
            "error",
            "Malformed output: expected exactly one <final_answer>...</final_answer> block.",
        )
    return (
        "error",
        "Malformed output: expected either a tool invocation or a final answer in XML format.",
    )


# -- JSON ------------------------------------------------------------------------------------

JSON_FRAGMENTS: Final = (
    "```",
    "```json",
    "```json\n",
    "\n```",
    "{",
    "}",
    "[",
    "]",
    '"action"',
    '"action_input"',
    ": ",
    ", ",
    ",",
    '"Final Answer"',
    '"search"',
    "null",
    "true",
    "5",
    "-",
    "0.",
    "1e",
    "1e999",
    "NaN",
    "-Infinity",
    "tr",
    '"',
    "\\",
    '\\"',
    "\\u12",
    "\\ud83d",
    "\\ude00",
    "Action:",
    "Thought:",
    "[" * 1100,  # deeper than the recursion limit of json.loads
    "9" * 4301,  # longer than sys.get_int_max_str_digits()
)
FENCES: Final = (
    ("", ""),
    ("```", "```"),
    ("```json", "```"),
    ("```json\n", "\n```"),
    ("```\n", ""),
)
_SCALARS: Final = (None, True, False, 0, -1, 7, 2**70, 0.5, -1.25e-7, 1e300, "", "a", 'é\n"\\')


def json_text(d: Dice) -> str:
    """Near-valid JSON text: brackets, strings, escapes and literals in any order."""
    return d.glue(JSON_FRAGMENTS)


def json_value(d: Dice, depth: int = 0) -> Any:
    """A JSON value: scalars, strings with any characters, nested lists and objects."""
    kind = d.below(6) if depth < 3 else 0
    if kind == 0:
        return d.pick(_SCALARS)
    if kind == 1:
        return d.text()
    if kind == 2:
        return [json_value(d, depth + 1) for _ in range(d.below(4))]
    if kind == 3:
        return {d.text(3): json_value(d, depth + 1) for _ in range(d.below(4))}
    return d.below(256) - 128 if kind == 4 else d.below(256) / 8


def json_document(d: Dice) -> tuple[Any, str]:
    """A JSON value and a model's reply holding it: fenced or bare, indented or not."""
    value = json_value(d)
    text = json.dumps(value, indent=d.pick([None, 2]), ensure_ascii=d.coin())
    # A fence ends at the first ``` after it, so text that holds one goes unfenced.
    opening, closing = d.pick(FENCES) if "```" not in text else ("", "")
    lead = d.pick(["", "  ", "\n", "Sure:\n", "Here it is "]) if opening else ""
    return value, f"{lead}{opening}{text}{closing}"


def json_agent_blob(d: Dice) -> tuple[Any, str]:
    """An action blob (maybe a list of them, maybe fenced, maybe after prose) and its value."""
    blob: dict[str, Any] = {}
    if d.below(6):
        blob["action"] = d.pick(["Final Answer", "search", "echo", "", 5, None, ["x"]])
    if d.below(6):
        blob["action_input"] = json_value(d)
    if d.coin():
        blob[d.text(3)] = d.pick(_SCALARS)
    value: Any = blob
    if d.below(6) == 0:
        value = [blob, {"action": "second"}][: 1 + d.below(2)]
    text = json.dumps(value, indent=d.pick([None, 2]))
    opening, closing = d.pick(FENCES) if "```" not in text else ("", "")
    lead = d.pick(["Thought: go\nAction:\n", "", "Action: "]) if opening else ""
    return value, f"{lead}{opening}{text}{closing}"


def expected_json_decision(value: Any) -> Any:
    """What `JSONAgentOutputParser` must decide for a blob: ("action", tool, input),
    ("finish", output) or ("error",)."""
    if isinstance(value, list):
        value = value[0] if value else None
    if not isinstance(value, dict) or "action" not in value:
        return ("error",)
    action = value["action"]
    if action == "Final Answer":
        return ("finish", value["action_input"]) if "action_input" in value else ("error",)
    tool_input = value.get("action_input")
    if tool_input is None:
        tool_input = {}
    if not isinstance(action, str) or not isinstance(tool_input, str | dict):
        return ("error",)
    return ("action", action, tool_input)


def split(text: str, d: Dice, max_pieces: int = 8) -> list[str]:
    """`text` cut at up to `max_pieces - 1` places (empty pieces included)."""
    cuts = sorted(d.below(256) * len(text) // 255 for _ in range(d.below(max_pieces)))
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges)]
