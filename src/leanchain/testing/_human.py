"""`HumanChatModel`: a person plays the model — it prints the prompt and reads the reply.

Put it where the real model goes to see a round through the model's eyes: is the prompt
enough to act on, and what does the agent do with the reply a person gives? The reply is
typed on standard input, a line holding only ``.`` ending it (end of input ends it too); a line
``/tool NAME {json arguments}`` asks for a tool call instead of saying text.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from leanchain.callbacks.manager import RunManager
from leanchain.language_models import BaseChatModel, ChatGeneration, ChatResult
from leanchain.messages import AIMessage, BaseMessage, ToolCall, tool_call
from leanchain.testing.transcript import prompt_lines

if TYPE_CHECKING:
    from leanchain.language_models import LanguageModelInput, ToolChoice
    from leanchain.runnables import Runnable
    from leanchain.tools import ToolLike

__all__ = ["HumanChatModel"]

END = "."
TOOL_PREFIX = "/tool "
INSTRUCTIONS = (
    f'Your reply as the model: end it with a line holding only "{END}"; '
    f"a line '{TOOL_PREFIX.strip()} NAME {{json arguments}}' calls a tool."
)


class HumanChatModel(BaseChatModel):
    """A chat model whose replies a person types: it prints each prompt and reads the reply.

    Args:
        input: where replies are read from (default: standard input at call time).
        output: where prompts are printed (default: standard output at call time).
        name: the name shown in callbacks and events.

    Raises:
        EOFError: (when called) the input ended before any reply was typed.
    """

    __slots__ = ("_calls", "_round", "input", "output")

    def __init__(
        self,
        *,
        input: TextIO | None = None,
        output: TextIO | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.input = input
        self.output = output
        self._round = 0
        self._calls = 0

    @property
    def _llm_type(self) -> str:
        return "human"

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """This model with the tools' schemas bound: the prompt lists them."""
        return self._bind_openai_tools(tools, tool_choice, kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: RunManager | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        out = self.output or sys.stdout
        self._round += 1
        lines = [f"=== round {self._round}: the prompt ({len(messages)} messages) ==="]
        lines += prompt_lines(messages, kwargs.get("tools"), stop)
        lines += ["=== " + INSTRUCTIONS]
        out.write("\n".join(lines) + "\n")
        out.flush()
        reply = self._read(out)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _read(self, out: TextIO) -> AIMessage:
        source = self.input or sys.stdin
        text: list[str] = []
        calls: list[ToolCall] = []
        got_any = False
        while True:
            out.write("> ")
            out.flush()
            line = source.readline()
            if not line:
                if not got_any:
                    raise EOFError("HumanChatModel: the input ended before a reply was typed")
                break
            got_any = True
            line = line.rstrip("\r\n")
            if line == END:
                break
            if line.startswith(TOOL_PREFIX):
                call = self._tool_call(line[len(TOOL_PREFIX) :], out)
                if call is not None:
                    calls.append(call)
                continue
            text.append(line)
        return AIMessage(content="\n".join(text), tool_calls=calls)

    def _tool_call(self, spec: str, out: TextIO) -> ToolCall | None:
        name, _, raw = spec.strip().partition(" ")
        try:
            args = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            out.write(
                f"(not a tool call: the arguments are not JSON: {exc}; type the line again)\n"
            )
            return None
        if not name or not isinstance(args, dict):
            out.write("(not a tool call: expected '/tool NAME {json object}'; type it again)\n")
            return None
        self._calls += 1
        return tool_call(name=name, args=args, id=f"human_call_{self._calls}")
