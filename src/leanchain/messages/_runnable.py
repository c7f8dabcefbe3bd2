"""The chain form of the message utilities: called without messages, they return a runnable.

``trim_messages(max_tokens=100, token_counter=len) | model`` works as in LangChain. The
runnables package sits below this one (DESIGN §1), and it is imported only when a runnable is
asked for, so ``import leanchain.messages`` does not load it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from ._base import BaseMessage
from ._convert import MessageLikeRepresentation

if TYPE_CHECKING:
    from leanchain.runnables import Runnable

__all__ = ["MessagesInput", "SupportsToMessages", "messages_runnable"]


class SupportsToMessages(Protocol):
    """A prompt value: anything with ``to_messages()``."""

    def to_messages(self) -> list[BaseMessage]:
        """The messages this value stands for."""
        ...


MessagesInput: TypeAlias = Iterable[MessageLikeRepresentation] | SupportsToMessages
"""What the message utilities take: messages in any form `convert_to_messages` reads, or a
prompt value."""


def messages_runnable(
    name: str, func: Callable[[Any], list[BaseMessage]], *, in_thread: bool
) -> Runnable[Any, list[BaseMessage]]:
    """`func` as a runnable named `name`, taking messages (or a prompt value).

    Args:
        name: the runnable's name, shown in callbacks, events and traces.
        func: the utility with its options applied.
        in_thread: whether ``ainvoke`` runs `func` in a worker thread (it calls user code
            that may be slow, a token counter say) or directly (pure and quick).
    """
    from leanchain.runnables import RunnableLambda

    if in_thread:
        return RunnableLambda(func, name=name)

    async def afunc(messages: Any) -> list[BaseMessage]:
        return func(messages)

    return RunnableLambda(func, afunc=afunc, name=name)
