"""``leanchain demo`` offline: every agent type end to end, the exact trace and final answers."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from leanchain.agents import AgentExecutor
from leanchain.cli import main
from leanchain.cli._demo import build_agent, build_executor
from leanchain.cli._demo_models import AGENT_TYPES, DEMO_ANSWER, DEMO_QUESTION, demo_model
from leanchain.cli._demo_tools import calculator, convert_units
from leanchain.tools import tool

FINAL = f"Final answer: {DEMO_ANSWER}"

TOOL_CALLING_TRACE = f"""\
=== tool-calling agent (create_tool_calling_agent, offline demo model) ===
Question: {DEMO_QUESTION}
Step 1
  | I need the population of Paris and the height of the Eiffel Tower.
  -> city_facts(city='Paris', fact='population')
  -> city_facts(city='Paris', fact='landmark_height')
  <- city_facts: Paris population: 2102650
  <- city_facts: Paris landmark_height: 330 m
Step 2
  | Paris has 2102650 inhabitants and the Eiffel Tower is 330 m tall. Next I convert the \
height to feet.
  -> convert_units(value=330, from_unit='m', to_unit='ft')
  <- convert_units: 330 m = 1082.68 ft
Step 3
  | The tower is 1082.68 ft tall. Now I divide the population by the height.
  -> calculator(expression='2102650 / 1082.68')
  <- calculator: 1942.078915
{FINAL}
"""

XML_TRACE = f"""\
=== xml agent (create_xml_agent, offline demo model) ===
Question: {DEMO_QUESTION}
Step 1
  | I need the population of Paris and the height of the Eiffel Tower.
  | <tool>city_facts</tool><tool_input>Paris
  -> city_facts('Paris')
  <- city_facts: Paris: country France; population 2102650; landmark Eiffel Tower; \
landmark_height 330 m
Step 2
  | Paris has 2102650 inhabitants and the Eiffel Tower is 330 m tall. Next I convert the \
height to feet.
  | <tool>convert_units</tool><tool_input>330 m to ft
  -> convert_units('330 m to ft')
  <- convert_units: 330 m = 1082.68 ft
Step 3
  | The tower is 1082.68 ft tall. Now I divide the population by the height.
  | <tool>calculator</tool><tool_input>2102650 / 1082.68
  -> calculator('2102650 / 1082.68')
  <- calculator: 1942.078915
{FINAL}
"""

JSON_CHAT_TRACE = f"""\
=== json-chat agent (create_json_chat_agent, offline demo model) ===
Question: {DEMO_QUESTION}
Step 1
  | ```json
  | {{
  |   "action": "city_facts",
  |   "action_input": {{
  |     "city": "Paris"
  |   }}
  | }}
  | ```
  -> city_facts(city='Paris')
  <- city_facts: Paris: country France; population 2102650; landmark Eiffel Tower; \
landmark_height 330 m
Step 2
  | ```json
  | {{
  |   "action": "convert_units",
  |   "action_input": {{
  |     "value": 330,
  |     "from_unit": "m",
  |     "to_unit": "ft"
  |   }}
  | }}
  | ```
  -> convert_units(value=330, from_unit='m', to_unit='ft')
  <- convert_units: 330 m = 1082.68 ft
Step 3
  | ```json
  | {{
  |   "action": "calculator",
  |   "action_input": {{
  |     "expression": "2102650 / 1082.68"
  |   }}
  | }}
  | ```
  -> calculator(expression='2102650 / 1082.68')
  <- calculator: 1942.078915
{FINAL}
"""

CALLS = {
    "tool-calling": [
        "-> city_facts(city='Paris', fact='population')",
        "-> city_facts(city='Paris', fact='landmark_height')",
        "-> convert_units(value=330, from_unit='m', to_unit='ft')",
        "-> calculator(expression='2102650 / 1082.68')",
    ],
    "react": [
        "-> city_facts('Paris')",
        "-> convert_units('330 m to ft')",
        "-> calculator('2102650 / 1082.68')",
    ],
    "structured-chat": [
        "-> city_facts(city='Paris')",
        "-> convert_units(value=330, from_unit='m', to_unit='ft')",
        "-> calculator(expression='2102650 / 1082.68')",
    ],
    "json-chat": [
        "-> city_facts(city='Paris')",
        "-> convert_units(value=330, from_unit='m', to_unit='ft')",
        "-> calculator(expression='2102650 / 1082.68')",
    ],
    "xml": [
        "-> city_facts('Paris')",
        "-> convert_units('330 m to ft')",
        "-> calculator('2102650 / 1082.68')",
    ],
}


def _lines(text: str, prefix: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith(prefix)]


@pytest.fixture(autouse=True)
def _no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.mark.parametrize(
    ("agent_type", "trace"),
    [("tool-calling", TOOL_CALLING_TRACE), ("json-chat", JSON_CHAT_TRACE), ("xml", XML_TRACE)],
)
def test_exact_trace(agent_type: str, trace: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--agent", agent_type]) == 0
    captured = capsys.readouterr()
    assert captured.out == trace
    assert captured.err == ""


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_each_agent_type_runs_the_tools_and_answers(
    agent_type: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--agent", agent_type]) == 0
    out = capsys.readouterr().out
    assert _lines(out, "->") == CALLS[agent_type]
    assert _lines(out, "<-")[-2:] == [
        "<- convert_units: 330 m = 1082.68 ft",
        "<- calculator: 1942.078915",
    ]
    assert _lines(out, "Final answer:") == [FINAL]
    assert _lines(out, "Step") == ["Step 1", "Step 2", "Step 3"]


def test_react_and_structured_chat_show_their_formats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--agent", "react"]) == 0
    react = capsys.readouterr().out
    assert "  | Action: convert_units\n  | Action Input: 330 m to ft\n" in react
    assert main(["demo", "--agent", "structured-chat"]) == 0
    structured = capsys.readouterr().out
    assert '  |   "action": "convert_units",\n  |   "action_input": {\n' in structured


def test_all_is_the_default_and_runs_the_five_types_in_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert _lines(out, "===") == [
        "=== tool-calling agent (create_tool_calling_agent, offline demo model) ===",
        "=== react agent (create_react_agent, offline demo model) ===",
        "=== structured-chat agent (create_structured_chat_agent, offline demo model) ===",
        "=== json-chat agent (create_json_chat_agent, offline demo model) ===",
        "=== xml agent (create_xml_agent, offline demo model) ===",
    ]
    assert _lines(out, "Final answer:") == [FINAL] * 5


def test_the_built_in_question_may_be_given_explicitly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo", "--agent", "react", "--question", f"  {DEMO_QUESTION} "]) == 0
    assert _lines(capsys.readouterr().out, "Final answer:") == [FINAL]


def test_python_dash_m_runs_the_demo() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "leanchain", "demo", "--agent", "structured-chat"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={"PATH": "", "NO_COLOR": "1"},
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == FINAL


def test_colour_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from io import StringIO

    from leanchain.cli._trace import use_colour

    class Terminal(StringIO):
        def isatty(self) -> bool:
            return True

    assert use_colour(Terminal()) is True
    assert use_colour(StringIO()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_colour(Terminal()) is False


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_the_model_checks_what_the_tools_return(agent_type: str) -> None:
    @tool
    def city_facts(city: str, fact: str = "all") -> str:
        """A broken lookup."""
        return "no idea"

    tools = [city_facts, convert_units, calculator]
    executor = AgentExecutor(
        agent=build_agent(agent_type, demo_model(agent_type), tools), tools=tools
    )
    observed = "no idea; no idea" if agent_type == "tool-calling" else "no idea"
    assert executor.invoke(DEMO_QUESTION)["output"] == (
        f"I cannot go on: the city_facts tool returned {observed!r}, which is not what this "
        "offline demo model expects."
    )


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_the_model_knows_one_question(agent_type: str) -> None:
    executor = build_executor(agent_type, demo_model(agent_type))
    assert executor.invoke("What is 2 + 2?")["output"] == (
        "I am leanchain's offline demo model and can only answer one question: " + DEMO_QUESTION
    )


@pytest.mark.parametrize("agent_type", AGENT_TYPES)
def test_the_model_builds_its_calls_from_the_observations(agent_type: str) -> None:
    executor = build_executor(agent_type, demo_model(agent_type))
    result = executor.stream(DEMO_QUESTION)
    steps = [step for chunk in result if "steps" in chunk for step in chunk["steps"]]
    assert steps[-1].action.tool == "calculator"
    assert steps[-1].observation == "1942.078915"


def test_unknown_agent_type_for_the_model() -> None:
    with pytest.raises(ValueError, match=r"^unknown agent type 'sql'; expected one of \("):
        demo_model("sql")


def test_the_tool_calling_model_says_which_tools_are_missing() -> None:
    executor = AgentExecutor(
        agent=build_agent("tool-calling", demo_model("tool-calling"), [calculator]),
        tools=[calculator],
    )
    assert executor.invoke(DEMO_QUESTION)["output"] == (
        "I need the tools ['city_facts'], but they were not offered to me."
    )


DOCS_CLI = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
DOCS_DEMO = re.compile(r"^```console\n\$ leanchain demo --agent (\S+)\n(.*?)^```$", re.M | re.S)


def test_the_docs_show_what_the_demo_prints(capsys: pytest.CaptureFixture[str]) -> None:
    shown = DOCS_DEMO.findall(DOCS_CLI.read_text())
    assert [agent_type for agent_type, _ in shown] == ["tool-calling", "json-chat"]
    for agent_type, text in shown:
        assert main(["demo", "--agent", agent_type]) == 0
        lines = text.splitlines()
        cut = lines.index("...") if "..." in lines else len(lines)
        assert capsys.readouterr().out.splitlines()[:cut] == lines[:cut]
