"""``leanchain demo`` with real providers: the switch, the prompts sent, one-line errors."""

from __future__ import annotations

import os
import socket

import pytest

from leanchain.agents.prompts import JSON_CHAT_PROMPT, TEMPLATE_TOOL_RESPONSE
from leanchain.cli import main
from leanchain.cli._demo_models import DEMO_QUESTION
from leanchain.cli._demo_tools import demo_tools
from leanchain.testing import FakeProviderServer, ScriptedError, ScriptedReply, ScriptedToolCall
from leanchain.tools import render_text_description


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")) or name == "NO_COLOR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err  # one line, no traceback
    return err.rstrip("\n")


@pytest.mark.parametrize(
    ("model", "env"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:c", "ANTHROPIC_API_KEY")],
)
def test_missing_key(model: str, env: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "demo", "--model", model) == (
        f"leanchain demo: error: {env} is not set: export it to use {model}, "
        "or give --base-url for a server that needs no key"
    )


@pytest.mark.parametrize("model", ["mistral:large", "gpt-4o", ":x"])
def test_unknown_model_prefix(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "demo", "--model", model) == (
        f"leanchain demo: error: unknown model {model!r}: expected openai:NAME or "
        "anthropic:NAME, e.g. openai:gpt-4o-mini"
    )


def test_empty_model_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "demo", "--model", "openai: ") == (
        "leanchain demo: error: --model 'openai: ' has no model name after 'openai:'"
    )


def test_base_url_needs_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "demo", "--base-url", "http://127.0.0.1:1/v1") == (
        "leanchain demo: error: --base-url needs --model, e.g. --model openai:NAME --base-url URL"
    )


def test_offline_model_answers_only_its_question(capsys: pytest.CaptureFixture[str]) -> None:
    assert _error(capsys, "demo", "--question", "How tall is Tokyo Skytree?") == (
        "leanchain demo: error: the offline demo model can only answer its built-in question "
        f"({DEMO_QUESTION!r}); use --model PROVIDER:NAME to ask a real model your own"
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    message = _error(capsys, "demo", "--agent", "react", "--model", "openai:m", "--base-url", url)
    assert message.startswith(
        f"leanchain demo: error: cannot reach the model server at {url}: Could not reach OpenAI"
    )


def test_rejected_key_names_the_model_and_not_the_key(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    with FakeProviderServer() as server:
        server.enqueue(ScriptedError(401))
        message = _error(
            capsys,
            "demo",
            "--agent",
            "xml",
            "--model",
            "openai:m",
            "--base-url",
            server.openai_base_url,
        )
    assert message.startswith("leanchain demo: error: openai:m rejected the API key: ")
    assert "sk-secret-value" not in message


def test_server_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeProviderServer() as server:
        server.enqueue(ScriptedError(400, message="bad model"))
        message = _error(
            capsys,
            "demo",
            "--agent",
            "react",
            "--model",
            "openai:m",
            "--base-url",
            server.openai_base_url,
        )
    assert message.startswith("leanchain demo: error: openai:m failed: ")
    assert "bad model" in message


def test_openai_compatible_server_with_a_question(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeProviderServer() as server:
        server.enqueue(
            ScriptedReply(tool_calls=[ScriptedToolCall("calculator", {"expression": "6*7"})]),
            ScriptedReply(text="6 times 7 is 42."),
        )
        code = main(
            [
                "demo",
                "--agent",
                "tool-calling",
                "--model",
                "openai:local-model",
                "--base-url",
                server.openai_base_url,
                "--question",
                "What is 6*7?",
            ]
        )
        [first, second] = server.requests
    assert code == 0
    assert capsys.readouterr().out == (
        "=== tool-calling agent (create_tool_calling_agent, openai:local-model) ===\n"
        "Question: What is 6*7?\n"
        "Step 1\n"
        "  -> calculator(expression='6*7')\n"
        "  <- calculator: 42\n"
        "Final answer: 6 times 7 is 42.\n"
    )
    assert first.body["model"] == "local-model"
    assert [t["function"]["name"] for t in first.body["tools"]] == [
        "city_facts",
        "convert_units",
        "calculator",
    ]
    assert second.body["messages"][-1] == {
        "role": "tool",
        "content": "42",
        "tool_call_id": "call_1",
    }


def test_anthropic_with_the_react_agent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    with FakeProviderServer() as server:
        server.enqueue(
            ScriptedReply(text="I will convert.\nAction: convert_units\nAction Input: 1 mi to km"),
            ScriptedReply(text="I know it.\nFinal Answer: 1 mile is 1.60934 km."),
        )
        code = main(
            [
                "demo",
                "--agent",
                "react",
                "--model",
                "anthropic:claude-test",
                "--base-url",
                server.anthropic_base_url,
                "--question",
                "How many km is a mile?",
            ]
        )
        [first, _] = server.requests
    assert code == 0
    out = capsys.readouterr().out
    assert "  <- convert_units: 1 mi = 1.60934 km\n" in out
    assert out.endswith("Final answer: 1 mile is 1.60934 km.\n")
    assert first.body["model"] == "claude-test"
    assert first.body["stop_sequences"] == ["\nObservation"]


def test_usage_errors_come_from_argparse(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--agent", "sql"]) == 2
    assert "invalid choice: 'sql'" in capsys.readouterr().err
    assert main([]) == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == "leanchain 0.1.0\n"
    assert main(["demo", "--help"]) == 0
    assert "--base-url URL" in capsys.readouterr().out


def test_json_chat_sends_the_real_prompt_and_the_tool_response(
    capsys: pytest.CaptureFixture[str],
) -> None:
    reply = '```json\n{"action": "convert_units", "action_input": "1 mi to km"}\n```'
    with FakeProviderServer() as server:
        server.enqueue(
            ScriptedReply(text=reply),
            ScriptedReply(text='{"action": "Final Answer", "action_input": "1.60934 km."}'),
        )
        code = main(
            [
                "demo",
                "--agent",
                "json-chat",
                "--model",
                "openai:local-model",
                "--base-url",
                server.openai_base_url,
                "--question",
                "How many km is a mile?",
            ]
        )
        [first, second] = server.requests
    assert code == 0
    assert capsys.readouterr().out == (
        "=== json-chat agent (create_json_chat_agent, openai:local-model) ===\n"
        "Question: How many km is a mile?\n"
        "Step 1\n"
        "  | ```json\n"
        '  | {"action": "convert_units", "action_input": "1 mi to km"}\n'
        "  | ```\n"
        "  -> convert_units('1 mi to km')\n"
        "  <- convert_units: 1 mi = 1.60934 km\n"
        "Final answer: 1.60934 km.\n"
    )
    system, human = JSON_CHAT_PROMPT.format_messages(
        tools=render_text_description(demo_tools()),
        tool_names="city_facts, convert_units, calculator",
        input="How many km is a mile?",
        agent_scratchpad=[],
    )
    assert first.body["messages"] == [
        {"role": "system", "content": system.text},
        {"role": "user", "content": human.text},
    ]
    assert first.body["stop"] == ["\nObservation"]
    assert second.body["messages"][2:] == [
        {"role": "assistant", "content": reply},
        {
            "role": "user",
            "content": TEMPLATE_TOOL_RESPONSE.replace("{observation}", "1 mi = 1.60934 km"),
        },
    ]
