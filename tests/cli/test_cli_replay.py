"""``leanchain replay FILE [--round N]``: a recorded run printed round by round, line by line;
and ``leanchain demo --model human``, a person playing the model on a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import re
import runpy
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leanchain.agents import AgentExecutor, create_react_agent, create_tool_calling_agent
from leanchain.agents.prompts import REACT_PROMPT, TOOL_CALLING_PROMPT, TOOL_CALLING_SYSTEM
from leanchain.cli import main
from leanchain.language_models import ScriptedChatModel
from leanchain.messages import UsageMetadata
from leanchain.testing import cassette
from leanchain.tools import tool

QUESTION = "What is the weather in Paris and Tokyo, and the time in Tokyo?"
USAGE = UsageMetadata(input_tokens=120, output_tokens=18, total_tokens=138)


@tool
def get_weather(city: str) -> str:
    """Get the weather in a city."""
    return {"Paris": "sunny, 21 C", "Tokyo": "rain, 14 C"}[city]


@tool
def get_time(zone: str) -> str:
    """Get the local time in a time zone."""
    return "18:30"


TOOLS = [get_weather, get_time]


def tool_calling_run(path: Path) -> None:
    model = ScriptedChatModel(
        [
            ScriptedChatModel.tool_calls(
                ("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Tokyo"}), usage=USAGE
            ),
            ScriptedChatModel.tool_call(
                "get_time", {"zone": "Asia/Tokyo"}, content="Now the time."
            ),
            ScriptedChatModel.reply("Paris: sunny.\nTokyo: rain, 18:30.", usage=USAGE),
        ]
    )
    agent = create_tool_calling_agent(model, TOOLS, TOOL_CALLING_PROMPT)
    with cassette(path, mode="record"):
        AgentExecutor(agent=agent, tools=TOOLS).invoke({"input": QUESTION})


def react_run(path: Path) -> None:
    model = ScriptedChatModel(
        [
            "I should look it up.\nAction: get_weather\nAction Input: Paris",
            "I know it now.\nFinal Answer: Sunny, 21 C.",
        ]
    )
    agent = create_react_agent(model, TOOLS, REACT_PROMPT)
    with cassette(path, mode="record"):
        AgentExecutor(agent=agent, tools=TOOLS).invoke({"input": "Weather in Paris?"})


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["replay", *argv])
    captured = capsys.readouterr()
    return status, captured.out.split("\n"), captured.err


def test_the_run_round_by_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.json"
    tool_calling_run(path)
    status, lines, err = run(capsys, str(path))
    assert (status, err) == (0, "")
    assert lines == [
        f"{path}: 3 rounds",
        "",
        "=== Round 1 · invoke · ScriptedChatModel ===",
        "prompt (2 messages; tools: get_weather, get_time):",
        "  [system]",
        f"  {TOOL_CALLING_SYSTEM}",
        "  [human]",
        f"  {QUESTION}",
        "reply:",
        '  -> get_weather {"city": "Paris"} (call_1)',
        '  -> get_weather {"city": "Tokyo"} (call_2)',
        "  usage: 120 in, 18 out",
        "",
        "=== Round 2 · invoke · ScriptedChatModel ===",
        "prompt (5 messages; 2 new; tools: get_weather, get_time):",
        "observations:",
        "  get_weather call_1: sunny, 21 C",
        "  get_weather call_2: rain, 14 C",
        "reply:",
        "  Now the time.",
        '  -> get_time {"zone": "Asia/Tokyo"} (call_3)',
        "",
        "=== Round 3 · invoke · ScriptedChatModel ===",
        "prompt (7 messages; 1 new; tools: get_weather, get_time):",
        "observations:",
        "  get_time call_3: 18:30",
        "reply:",
        "  Paris: sunny.",
        "  Tokyo: rain, 18:30.",
        "  usage: 120 in, 18 out",
        "",
    ]


def test_one_round_in_full(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.json"
    tool_calling_run(path)
    status, lines, err = run(capsys, str(path), "--round", "3")
    assert (status, err) == (0, "")
    assert lines == [
        "=== Round 3 of 3 · invoke · ScriptedChatModel ===",
        "the full prompt (7 messages):",
        "[system]",
        TOOL_CALLING_SYSTEM,
        "[human]",
        QUESTION,
        "[ai]",
        '-> get_weather {"city": "Paris"} (call_1)',
        '-> get_weather {"city": "Tokyo"} (call_2)',
        "[tool get_weather call_1]",
        "sunny, 21 C",
        "[tool get_weather call_2]",
        "rain, 14 C",
        "[ai]",
        "Now the time.",
        '-> get_time {"zone": "Asia/Tokyo"} (call_3)',
        "[tool get_time call_3]",
        "18:30",
        "tools offered: get_weather, get_time",
        "reply:",
        "  Paris: sunny.",
        "  Tokyo: rain, 18:30.",
        "  usage: 120 in, 18 out",
        "",
    ]


def test_a_text_protocol_agent_shows_what_its_prompt_grew_by(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "react.json"
    react_run(path)
    status, lines, _ = run(capsys, str(path))
    assert status == 0
    second = lines.index("=== Round 2 · invoke · ScriptedChatModel ===")
    assert lines[second:] == [
        "=== Round 2 · invoke · ScriptedChatModel ===",
        "prompt (1 message):",
        "  [human] continued:",
        "  ...I should look it up.",
        "  Action: get_weather",
        "  Action Input: Paris",
        "  Observation: sunny, 21 C",
        "  Thought: ",
        "reply:",
        "  I know it now.",
        "  Final Answer: Sunny, 21 C.",
        "",
    ]
    first = lines[: second - 1]
    assert first[:4] == [
        f"{path}: 2 rounds",
        "",
        "=== Round 1 · invoke · ScriptedChatModel ===",
        "prompt (1 message):",
    ]
    assert first[-4:] == [
        "reply:",
        "  I should look it up.",
        "  Action: get_weather",
        "  Action Input: Paris",
    ]
    prompt = json.loads(path.read_text())["entries"][0]["request"]["messages"][0]
    assert first[-5].endswith(f"... ({len(chr(10).join(prompt['content_lines']))} chars)")
    status, lines, _ = run(capsys, str(path), "--round", "2")
    assert status == 0
    assert lines[-11:] == [
        "Question: Weather in Paris?",
        "Thought:I should look it up.",
        "Action: get_weather",
        "Action Input: Paris",
        "Observation: sunny, 21 C",
        "Thought: ",
        'stop sequences: "\\nObservation"',
        "reply:",
        "  I know it now.",
        "  Final Answer: Sunny, 21 C.",
        "",
    ]


def test_a_round_that_is_not_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.json"
    tool_calling_run(path)
    assert run(capsys, str(path), "--round", "4") == (
        2,
        [""],
        f"leanchain replay: error: --round 4: {path} has rounds 1 to 3\n",
    )
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"version": 1, "entries": []}))
    assert run(capsys, str(empty), "--round", "1")[2] == (
        f"leanchain replay: error: --round 1: {empty} has no rounds\n"
    )


def test_a_missing_or_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.json"
    assert run(capsys, str(missing)) == (
        2,
        [""],
        f"leanchain replay: error: cassette {missing} does not exist: record it first "
        "(mode='record' or 'once')\n",
    )
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"version": 7, "entries": []}))
    assert run(capsys, str(bad))[2] == (
        f"leanchain replay: error: cassette {bad} is format version 7; this leanchain reads "
        "version 1 (record it again)\n"
    )
    evil = tmp_path / "evil.json"
    evil.write_text(
        json.dumps(
            {
                "version": 1,
                "entries": [
                    {
                        "call": "invoke",
                        "model": "m",
                        "request": {"messages": [{"type": "builtins.exec", "content": "x"}]},
                        "reply": {"type": "ai", "content": "r"},
                    }
                ],
            }
        )
    )
    assert run(capsys, str(evil))[2] == (
        "leanchain replay: error: cassette entry 1 request message 1: not a message leanchain "
        "can read: Got unexpected message type: builtins.exec\n"
    )


def test_help_lists_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "replay" in capsys.readouterr().out


DOCS = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_the_docs_show_what_the_recording_and_the_command_really_give(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = DOCS.read_text()
    section = text[text.index("## Recording real traffic") :]
    first_block = re.search(r"```python\n(.*?)```", section, re.S)
    assert first_block is not None
    script = tmp_path / "record.py"
    script.write_text(first_block.group(1))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    runpy.run_path(str(script))
    shown = re.search(r"```console\n\$ leanchain replay weather.json\n(.*?)```", section, re.S)
    assert shown is not None
    assert main(["replay", "weather.json"]) == 0
    assert capsys.readouterr().out == shown.group(1)
    excerpt = re.search(r"The\nfirst entry of `weather.json`:\n\n```text\n(.*?)```", section, re.S)
    assert excerpt is not None
    written = (tmp_path / "weather.json").read_text().split("\n")
    entry = written[3 : written.index("    },", 3)]
    assert excerpt.group(1) == "\n".join(line[4:] for line in entry) + "\n}\n"


class Terminal:
    """A command run on a pseudo-terminal: read what it shows, type what a person would."""

    def __init__(self, *argv: str) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "NO_COLOR": "1", "NO_PROXY": "127.0.0.1,localhost"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "leanchain", *argv],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.shown = b""
        self.read = 0

    def read_until(self, text: str, timeout: float = 20.0) -> None:
        """Wait until `text` is shown after what was read until last time."""
        deadline = time.monotonic() + timeout
        wanted = text.encode()
        while (at := self.shown.find(wanted, self.read)) == -1:
            left = deadline - time.monotonic()
            assert left > 0, f"no {text!r} in {self.shown.decode(errors='replace')!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError:  # the command ended and closed the terminal
                    data = b""
                assert data, f"ended before {text!r}: {self.shown.decode(errors='replace')!r}"
                self.shown += data
        self.read = at + len(wanted)

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\n")

    def finish(self, timeout: float = 20.0) -> tuple[int, str]:
        status = self.process.wait(timeout)
        while select.select([self.master], [], [], 0.1)[0]:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                break
            if not data:
                break
            self.shown += data
        return status, self.shown.decode().replace("\r\n", "\n")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        os.close(self.master)


HUMAN_PROMPT = (
    '=== Your reply as the model: end it with a line holding only "."; '
    "a line '/tool NAME {json arguments}' calls a tool.\n"
)


def test_model_human_lets_a_person_play_the_model_on_a_terminal() -> None:
    terminal = Terminal(
        "demo", "--model", "human", "--agent", "tool-calling", "--question", "What is 2+2?"
    )
    try:
        terminal.read_until(HUMAN_PROMPT.strip() + "\r\n> ")
        terminal.type('/tool calculator {"expression": "2+2"}')
        terminal.read_until('"2+2"}\r\n> ')
        terminal.type(".")
        terminal.read_until("(4 messages)")
        terminal.read_until(HUMAN_PROMPT.strip() + "\r\n> ")
        terminal.type("It is 4.")
        terminal.read_until("It is 4.\r\n> ")
        terminal.type(".")
        status, shown = terminal.finish()
    finally:
        terminal.close()
    system = TOOL_CALLING_SYSTEM
    tools = "tools offered: city_facts, convert_units, calculator\n"
    assert status == 0
    assert shown == (
        "=== tool-calling agent (create_tool_calling_agent, human:you) ===\n"
        "Question: What is 2+2?\n"
        "=== round 1: the prompt (2 messages) ===\n"
        f"[system]\n{system}\n[human]\nWhat is 2+2?\n{tools}{HUMAN_PROMPT}"
        '> /tool calculator {"expression": "2+2"}\n'
        "> .\n"
        "Step 1\n"
        "  -> calculator(expression='2+2')\n"
        "  <- calculator: 4\n"
        "=== round 2: the prompt (4 messages) ===\n"
        f"[system]\n{system}\n[human]\nWhat is 2+2?\n"
        '[ai]\n-> calculator {"expression": "2+2"} (human_call_1)\n'
        f"[tool calculator human_call_1]\n4\n{tools}{HUMAN_PROMPT}"
        "> It is 4.\n"
        "> .\n"
        "Final answer: It is 4.\n"
    )


def test_model_human_at_the_end_of_input_is_a_one_line_error() -> None:
    terminal = Terminal("demo", "--model", "human", "--agent", "react", "--question", "2+2?")
    try:
        terminal.read_until(HUMAN_PROMPT.strip() + "\r\n> ")
        os.write(terminal.master, b"\x04")  # Ctrl-D: the end of input
        status, shown = terminal.finish()
    finally:
        terminal.close()
    assert status == 2
    assert shown.endswith(
        "> leanchain demo: error: HumanChatModel: the input ended before a reply was typed\n"
    )
