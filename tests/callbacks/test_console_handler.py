"""`ConsoleCallbackHandler`: the exact trace of a run tree, colours and where it goes (agent
runs: test_console_agents.py)."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest

from leanchain.callbacks import ConsoleCallbackHandler
from leanchain.language_models import FakeListChatModel, ScriptedChatModel
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate
from leanchain.runnables import Runnable, RunnableLambda

TIMING = re.compile(r"\[\d+\.\d ms\]|\[\d+\.\d\d s\]")


def pipeline(model: Any = None) -> Runnable[dict[str, Any], str]:
    prompt = ChatPromptTemplate.from_messages([("human", "{q}")])
    return prompt | (model or FakeListChatModel(responses=["ab"])) | StrOutputParser()


def trace(runnable: Runnable[Any, Any], input: Any, **options: Any) -> str:
    out = io.StringIO()
    runnable.invoke(input, {"callbacks": [ConsoleCallbackHandler(out, **options)]})
    return TIMING.sub("[T]", out.getvalue())


def test_prompt_model_parser_prints_an_indented_tree() -> None:
    assert trace(pipeline(), {"q": "x"}, color=False).splitlines() == [
        "> chain:RunnableSequence  input: {'q': 'x'}",
        "  > prompt:ChatPromptTemplate  input: {'q': 'x'}",
        "  < prompt:ChatPromptTemplate  [T]  output: [human: 'x']",
        "  > chat_model:FakeListChatModel  input: [human: 'x']",
        "  < chat_model:FakeListChatModel  [T]  output: ai: 'ab'",
        "  > parser:StrOutputParser  input: ai: 'ab'",
        "  < parser:StrOutputParser  [T]  output: 'ab'",
        "< chain:RunnableSequence  [T]  output: 'ab'",
    ]


def test_model_lines_show_token_usage() -> None:
    usage = {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15}
    model = ScriptedChatModel([ScriptedChatModel.reply("ok", usage=usage)])  # type: ignore[arg-type]
    lines = trace(model, "hi", color=False).splitlines()
    assert lines == [
        "> chat_model:ScriptedChatModel  input: [human: 'hi']",
        "< chat_model:ScriptedChatModel  [T]  tokens: 12 in / 3 out  output: ai: 'ok'",
    ]


def test_long_values_are_cut() -> None:
    lines = trace(
        RunnableLambda(lambda s: s.upper(), name="up"), "a\n" * 30, color=False, max_length=20
    )
    assert lines.splitlines() == [
        "> chain:up  input: 'a\\na\\na\\na\\na\\na...",
        "< chain:up  [T]  output: 'A\\nA\\nA\\nA\\nA\\nA...",
    ]


def test_errors_print_in_red_with_colours_on() -> None:
    def fail(x: int) -> int:
        raise ValueError(f"bad {x}")

    out = io.StringIO()
    with pytest.raises(ValueError, match="bad 1"):
        RunnableLambda(fail, name="fail").invoke(
            1, {"callbacks": [ConsoleCallbackHandler(out, True)]}
        )
    lines = TIMING.sub("[T]", out.getvalue()).splitlines()
    assert lines == [
        "> \x1b[1mchain:fail\x1b[0m  input: 1",
        "x \x1b[1mchain:fail\x1b[0m  \x1b[2m[T]\x1b[0m  \x1b[31merror: ValueError: bad 1\x1b[0m",
    ]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colours_default_to_on_for_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert ConsoleCallbackHandler(Tty()).color is True
    assert ConsoleCallbackHandler(io.StringIO()).color is False


def test_no_color_turns_colours_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    handler = ConsoleCallbackHandler(Tty())
    assert handler.color is False
    out = Tty()
    FakeListChatModel(responses=["ok"]).invoke("hi", {"callbacks": [ConsoleCallbackHandler(out)]})
    assert "\x1b[" not in out.getvalue()
    # An explicit choice wins over the environment.
    assert ConsoleCallbackHandler(Tty(), color=True).color is True


def test_color_false_never_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = Tty()
    pipeline().invoke({"q": "x"}, {"callbacks": [ConsoleCallbackHandler(out, color=False)]})
    assert "\x1b[" not in out.getvalue()


def test_the_default_stream_is_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    RunnableLambda(lambda x: x, name="same").invoke(1, {"callbacks": [ConsoleCallbackHandler()]})
    assert TIMING.sub("[T]", capsys.readouterr().out) == (
        "> chain:same  input: 1\n< chain:same  [T]  output: 1\n"
    )
