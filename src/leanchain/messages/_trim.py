"""`trim_messages`: cut a conversation down to a token budget, as LangChain's ``trim_messages``.

The kept part is found by binary search over prefixes (of the reversed conversation for
``strategy="last"``), so a token counter is called O(log n) times on lists of messages, and a
per-message counter once per message: its counts are remembered for the call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeAlias, overload

from ._base import BaseMessage
from ._convert import convert_to_messages
from ._merge import Content
from ._runnable import MessagesInput, messages_runnable
from ._select import MessageTypes, type_matcher
from ._simple import SystemMessage
from ._token_count import count_tokens_approximately

if TYPE_CHECKING:
    from leanchain.runnables import Runnable

__all__ = ["SupportsTokenCount", "TokenCounter", "list_token_counter", "trim_messages"]


class SupportsTokenCount(Protocol):
    """A chat model (or anything) that counts the tokens of a list of messages."""

    def get_num_tokens_from_messages(self, messages: list[BaseMessage]) -> int:
        """The number of tokens `messages` take."""
        ...


TokenCounter: TypeAlias = (
    Callable[[list[BaseMessage]], int]
    | Callable[[BaseMessage], int]
    | SupportsTokenCount
    | Literal["approximate"]
)
"""How `trim_messages` counts tokens: a function of a list of messages (``len`` counts
messages), a function of one message (its first parameter annotated ``BaseMessage``), an
object with ``get_num_tokens_from_messages``, or ``"approximate"``
(`count_tokens_approximately`)."""


class SupportsSplitText(Protocol):
    """A text splitter object (LangChain's ``TextSplitter``): only ``split_text`` is used."""

    def split_text(self, text: str) -> list[str]:
        """`text` cut into pieces that join back to it."""
        ...


TextSplitter: TypeAlias = Callable[[str], list[str]] | SupportsSplitText
"""How `trim_messages` cuts a text for ``allow_partial``."""

Matcher: TypeAlias = Callable[[BaseMessage], bool]
ListCounter: TypeAlias = Callable[[list[BaseMessage]], int]

_MESSAGE_CLASS_NAMES: Final = frozenset(
    {
        "BaseMessage",
        "AIMessage",
        "HumanMessage",
        "SystemMessage",
        "ToolMessage",
        "ChatMessage",
        "FunctionMessage",
    }
)


@overload
def trim_messages(
    messages: None = None,
    *,
    max_tokens: int,
    token_counter: TokenCounter,
    strategy: Literal["first", "last"] = "last",
    allow_partial: bool = False,
    end_on: MessageTypes | None = None,
    start_on: MessageTypes | None = None,
    include_system: bool = False,
    text_splitter: TextSplitter | None = None,
) -> Runnable[Any, list[BaseMessage]]: ...
@overload
def trim_messages(
    messages: MessagesInput,
    *,
    max_tokens: int,
    token_counter: TokenCounter,
    strategy: Literal["first", "last"] = "last",
    allow_partial: bool = False,
    end_on: MessageTypes | None = None,
    start_on: MessageTypes | None = None,
    include_system: bool = False,
    text_splitter: TextSplitter | None = None,
) -> list[BaseMessage]: ...
def trim_messages(
    messages: MessagesInput | None = None,
    *,
    max_tokens: int,
    token_counter: TokenCounter,
    strategy: Literal["first", "last"] = "last",
    allow_partial: bool = False,
    end_on: MessageTypes | None = None,
    start_on: MessageTypes | None = None,
    include_system: bool = False,
    text_splitter: TextSplitter | None = None,
) -> list[BaseMessage] | Runnable[Any, list[BaseMessage]]:
    """The longest start or end of a conversation that fits in `max_tokens`.

    Example: the latest turns of a chat that fit in 1000 tokens, the system prompt kept and
    the history starting on a human turn (so it never opens with an orphaned tool result)::

        trim_messages(history, max_tokens=1000, token_counter=count, include_system=True,
                      start_on="human")

    Args:
        messages: the conversation (messages, anything `convert_to_messages` reads, or a
            prompt value). ``None`` returns a runnable that trims its input.
        max_tokens: the budget.
        token_counter: a function of a list of messages (``len`` counts messages), a
            function of one message (its first parameter annotated ``BaseMessage``; results
            are summed), an object with ``get_num_tokens_from_messages``, or
            ``"approximate"`` (`count_tokens_approximately`: characters / 4, per message).
        strategy: ``"last"`` keeps the end of the conversation, ``"first"`` its start.
        allow_partial: when the next message does not fit whole, keep part of it: its first
            (``"first"``) or last (``"last"``) content blocks, else the first or last pieces
            of its first text, cut by `text_splitter` (the content becomes that text).
        end_on: the kept messages end on a message of these kinds: later ones are dropped
            (for ``"last"``, before counting).
        start_on: (``"last"`` only) the kept messages start on one of these kinds: earlier
            ones are dropped. ``"human"`` keeps a history from starting with an AI message
            or a tool result.
        include_system: (``"last"`` only) keep a leading `SystemMessage`; the rest shares
            what is left of the budget. The system message is kept even if it alone is over
            budget, as in LangChain: then the result is over budget too.
        text_splitter: cuts a text for `allow_partial`: a function of a str returning str
            pieces that join back to it, or an object with ``split_text`` (a LangChain text
            splitter). Default: lines, each with its ``"\\n"``.

    Returns:
        The kept messages (the same objects, except a partial one), or, when `messages` is
        ``None``, a runnable doing this to its input.

    Raises:
        ValueError: an unknown strategy, `start_on` or `include_system` with
            ``strategy="first"``, a negative or non-numeric `max_tokens`, a `token_counter`
            or `text_splitter` of the wrong kind, or a bad type in `end_on`/`start_on`.
    """
    trim = _Trim(
        max_tokens,
        token_counter,
        strategy,
        allow_partial,
        end_on,
        start_on,
        include_system,
        text_splitter,
    )
    if messages is None:
        return messages_runnable("trim_messages", trim, in_thread=True)
    return trim(messages)


class _Trim:
    """The options of one `trim_messages`, checked once; calling it trims a conversation."""

    __slots__ = (
        "counter",
        "end_on",
        "include_system",
        "max_tokens",
        "partial",
        "split",
        "start_on",
        "strategy",
    )

    def __init__(
        self,
        max_tokens: Any,
        token_counter: Any,
        strategy: Any,
        allow_partial: bool,
        end_on: MessageTypes | None,
        start_on: MessageTypes | None,
        include_system: bool,
        text_splitter: Any,
    ) -> None:
        if strategy not in ("first", "last"):
            raise ValueError(
                f"Unrecognized {strategy=}. Supported strategies are 'last' and 'first'."
            )
        if start_on and strategy == "first":
            raise ValueError("start_on parameter is only valid with strategy='last'")
        if include_system and strategy == "first":
            raise ValueError("include_system parameter is only valid with strategy='last'")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, (int, float)):
            raise ValueError(f"max_tokens must be a number of tokens, got {max_tokens!r}")
        if max_tokens < 0:
            raise ValueError(f"max_tokens must not be negative, got {max_tokens!r}")
        self.max_tokens = max_tokens
        self.strategy = strategy
        self.include_system = include_system
        self.end_on = type_matcher(end_on, "end_on")
        self.start_on = type_matcher(start_on, "start_on")
        self.partial: Literal["first", "last"] | None = strategy if allow_partial else None
        self.counter = list_token_counter(token_counter)
        self.split = _splitter(text_splitter)

    def __call__(self, messages: MessagesInput) -> list[BaseMessage]:
        conversation = convert_to_messages(messages)
        count = self.counter
        if isinstance(count, _PerMessage):  # a fresh memory per call: the runnable is shared
            count = _Summed(count.count_one)
        if self.strategy == "first":
            return _keep_start(
                conversation, self.max_tokens, count, self.split, self.partial, self.end_on
            )
        if self.end_on is not None:
            _drop_tail(conversation, self.end_on)
        system = None
        budget = self.max_tokens
        if self.include_system and conversation and isinstance(conversation[0], SystemMessage):
            system = conversation[0]
            budget = max(0, budget - count([system]))
            del conversation[0]
        conversation.reverse()
        kept = _keep_start(conversation, budget, count, self.split, self.partial, self.start_on)
        kept.reverse()
        return kept if system is None else [system, *kept]


_BY_NAME: Final[dict[str, ListCounter]] = {"approximate": count_tokens_approximately}
"""The counters `trim_messages` knows by name."""


def list_token_counter(token_counter: TokenCounter) -> Callable[[list[BaseMessage]], int]:
    """`token_counter` as a function of a list of messages, read as `trim_messages` reads it.

    A per-message counter (its first parameter annotated ``BaseMessage``) is summed over the
    list; ``"approximate"`` is `count_tokens_approximately`; a model counts with its
    ``get_num_tokens_from_messages``.

    Raises:
        ValueError: `token_counter` is none of the forms `TokenCounter` allows.
    """
    if isinstance(token_counter, str) and token_counter in _BY_NAME:
        return _BY_NAME[token_counter]
    method = getattr(token_counter, "get_num_tokens_from_messages", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    if callable(token_counter):
        if _counts_one_message(token_counter):
            return _PerMessage(token_counter)  # type: ignore[arg-type]
        return token_counter  # type: ignore[return-value]
    raise ValueError(
        "'token_counter' expected to be a model that implements "
        "'get_num_tokens_from_messages()' or a function. Received object of type "
        f"{type(token_counter)}."
    )


def _counts_one_message(counter: Callable[..., Any]) -> bool:
    """Whether the counter's first parameter is annotated as a message (LangChain's test)."""
    try:
        signature = inspect.signature(counter, eval_str=True)
    except (NameError, SyntaxError, TypeError, ValueError):
        try:
            signature = inspect.signature(counter)
        except (TypeError, ValueError):  # a builtin without a signature
            return False
    first = next(iter(signature.parameters.values()), None)
    if first is None:
        return False
    annotation = first.annotation
    if isinstance(annotation, str):
        return annotation.rpartition(".")[2] in _MESSAGE_CLASS_NAMES
    return isinstance(annotation, type) and issubclass(annotation, BaseMessage)


class _PerMessage:
    """A per-message counter over a list: the sum of its counts."""

    __slots__ = ("count_one",)

    def __init__(self, count_one: Callable[[BaseMessage], int]) -> None:
        self.count_one = count_one

    def __call__(self, messages: list[BaseMessage]) -> int:
        count_one = self.count_one
        return sum(count_one(message) for message in messages)


class _Summed:
    """A per-message counter over a list, each message counted once per trim call."""

    __slots__ = ("count_one", "known")

    def __init__(self, count_one: Callable[[BaseMessage], int]) -> None:
        self.count_one = count_one
        # id -> (message, count): holding the message keeps its id from being reused.
        self.known: dict[int, tuple[BaseMessage, int]] = {}

    def __call__(self, messages: list[BaseMessage]) -> int:
        total = 0
        known = self.known
        for message in messages:
            entry = known.get(id(message))
            if entry is None:
                entry = known[id(message)] = (message, self.count_one(message))
            total += entry[1]
        return total


def _splitter(text_splitter: Any) -> Callable[[str], list[str]]:
    if text_splitter is None:
        return _lines
    split_text = getattr(text_splitter, "split_text", None)
    if callable(split_text):
        return split_text  # type: ignore[no-any-return]
    if callable(text_splitter):
        return text_splitter  # type: ignore[no-any-return]
    raise ValueError(
        "text_splitter must be a function of a str returning a list of str, or have a "
        f"split_text method; got {text_splitter!r}"
    )


def _lines(text: str) -> list[str]:
    """LangChain's default splitter: lines, each keeping its ``"\\n"``."""
    pieces = text.split("\n")
    return [piece + "\n" for piece in pieces[:-1]] + pieces[-1:]


def _drop_tail(messages: list[BaseMessage], end_on: Matcher) -> None:
    while messages and not end_on(messages[-1]):
        messages.pop()


def _keep_start(
    messages: list[BaseMessage],
    budget: float,
    count: ListCounter,
    split: Callable[[str], list[str]],
    partial: Literal["first", "last"] | None,
    end_on: Matcher | None,
) -> list[BaseMessage]:
    """The longest start of `messages` within `budget`, then cut back to end on `end_on`.

    ``partial`` says which end of a message that does not fit whole may be kept: "last"
    when `messages` is a reversed conversation.
    """
    if not messages:
        return messages
    kept = len(messages)
    if count(messages) > budget:
        low, high = 0, len(messages) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if count(messages[:middle]) <= budget:
                low = middle
            else:
                high = middle - 1
        kept = low
        if partial is not None:
            piece = _part_of(messages[:kept], messages[kept], budget, count, split, partial)
            if piece is not None:
                messages = [*messages[:kept], piece]
                kept += 1
    if end_on is not None:
        while kept and not end_on(messages[kept - 1]):
            kept -= 1
    return messages[:kept]


def _part_of(
    before: list[BaseMessage],
    message: BaseMessage,
    budget: float,
    count: ListCounter,
    split: Callable[[str], list[str]],
    side: Literal["first", "last"],
) -> BaseMessage | None:
    """As much of `message` as fits after `before`: whole blocks first, then text pieces."""
    content = message.content
    if isinstance(content, list):
        for size in range(len(content) - 1, 0, -1):
            blocks = content[:size] if side == "first" else content[-size:]
            trial = _with_content(message, blocks)
            if count([*before, trial]) <= budget:
                return trial
    text = _first_text(content)
    if not text:
        return None
    pieces = split(text)
    best = None
    low, high = 0, len(pieces)
    while low < high:
        middle = (low + high + 1) // 2
        taken = pieces[:middle] if side == "first" else pieces[-middle:]
        trial = _with_content(message, "".join(taken))
        if count([*before, trial]) <= budget:
            low, best = middle, trial
        else:
            high = middle - 1
    return best


def _first_text(content: Content) -> str | None:
    if isinstance(content, str):
        return content
    for block in content:
        if isinstance(block, str):
            return block
        if block.get("type") == "text":
            text = block.get("text")
            return text if isinstance(text, str) else None
    return None


def _with_content(message: BaseMessage, content: Sequence[Any] | str) -> BaseMessage:
    return message.model_copy(
        update={"content": content if isinstance(content, str) else list(content)}
    )
