"""`ConsoleCallbackHandler` on agent runs: thoughts, tool calls, observations and the answer;
the runs inside each step only with ``nested=True``. Every test checks the exact lines."""

from __future__ import annotations

import io
import re
from typing import Any
from uuid import uuid4

import pytest

from leanchain.agents import (
    AgentAction,
    AgentExecutor,
    AgentFinish,
    create_react_agent,
    create_structured_chat_agent,
    create_tool_calling_agent,
    create_xml_agent,
)
from leanchain.agents.prompts import REACT_PROMPT, STRUCTURED_CHAT_PROMPT, XML_PROMPT
from leanchain.callbacks import ConsoleCallbackHandler
from leanchain.errors import ProviderError
from leanchain.language_models import FunctionChatModel, ScriptedChatModel
from leanchain.messages import AIMessage
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder
from leanchain.runnables import Runnable, RunnableLambda
from leanchain.tools import convert_runnable_to_tool, tool

S = ScriptedChatModel
TIMING = re.compile(r"\[\d+\.\d ms\]|\[\d+\.\d\d s\]")
PROMPT = ChatPromptTemplate.from_messages(
    [("human", "{input}"), MessagesPlaceholder("agent_scratchpad")]
)
USAGE = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return "echo:" + text


def trace(runnable: Runnable[Any, Any], input: Any, **options: Any) -> list[str]:
    out = io.StringIO()
    runnable.invoke(input, {"callbacks": [ConsoleCallbackHandler(out, color=False, **options)]})
    return TIMING.sub("[T]", out.getvalue()).splitlines()


def calling_agent(model: Any, **kwargs: Any) -> AgentExecutor:
    return AgentExecutor(
        agent=create_tool_calling_agent(model, [add], PROMPT), tools=[add], **kwargs
    )


def react_agent(*replies: str, **kwargs: Any) -> AgentExecutor:
    agent = create_react_agent(S(list(replies)), [echo], REACT_PROMPT)
    return AgentExecutor(agent=agent, tools=[echo], **kwargs)


@pytest.mark.parametrize("mode", ["invoke", "ainvoke", "stream", "astream"])
async def test_a_three_step_react_agent_prints_thoughts_calls_observations_and_the_answer(
    mode: str,
) -> None:
    executor = react_agent(
        "I should echo hi.\nAction: echo\nAction Input: hi",
        "Now ho.\nAction: echo\nAction Input: ho",
        "I have both.\nFinal Answer: hi ho",
    )
    out = io.StringIO()
    config: Any = {"callbacks": [ConsoleCallbackHandler(out, color=False)]}
    if mode == "invoke":
        executor.invoke({"input": "say hi ho"}, config)
    elif mode == "ainvoke":
        await executor.ainvoke({"input": "say hi ho"}, config)
    elif mode == "stream":
        list(executor.stream({"input": "say hi ho"}, config))
    else:
        [chunk async for chunk in executor.astream({"input": "say hi ho"}, config)]
    assert TIMING.sub("[T]", out.getvalue()).splitlines() == [
        "> agent:AgentExecutor  input: {'input': 'say hi ho'}",
        "  thought: I should echo hi.",
        "  -> action: echo 'hi'",
        "  > tool:echo  input: 'hi'",
        "  < tool:echo  [T]  output: 'echo:hi'",
        "  thought: Now ho.",
        "  -> action: echo 'ho'",
        "  > tool:echo  input: 'ho'",
        "  < tool:echo  [T]  output: 'echo:ho'",
        "  thought: I have both.",
        "  -> finish: {'output': 'hi ho'}",
        "< agent:AgentExecutor  [T]  output: {'input': 'say hi ho', 'output': 'hi ho'}",
    ]


def test_verbose_prints_the_same_view_to_standard_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    executor = react_agent(
        "Look.\nAction: echo\nAction Input: hi", "Final Answer: hi", verbose=True
    )
    assert executor.invoke({"input": "say hi"})["output"] == "hi"
    assert TIMING.sub("[T]", capsys.readouterr().out).splitlines() == [
        "> agent:AgentExecutor  input: {'input': 'say hi'}",
        "  thought: Look.",
        "  -> action: echo 'hi'",
        "  > tool:echo  input: 'hi'",
        "  < tool:echo  [T]  output: 'echo:hi'",
        "  -> finish: {'output': 'hi'}",
        "< agent:AgentExecutor  [T]  output: {'input': 'say hi', 'output': 'hi'}",
    ]


def test_parallel_calls_share_one_thought_and_the_tokens_add_up_on_the_agent() -> None:
    two_calls = AIMessage(
        content="Both sums at once.",
        tool_calls=[
            {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"},
            {"name": "add", "args": {"a": 3, "b": 4}, "id": "c2"},
        ],
        usage_metadata=USAGE,
    )
    model = S([two_calls, S.reply("3 and 7.", usage=USAGE)])  # type: ignore[arg-type]
    lines = trace(calling_agent(model, max_tool_concurrency=1), {"input": "1+2, 3+4"})
    assert lines == [
        "> agent:AgentExecutor  input: {'input': '1+2, 3+4'}",
        "  thought: Both sums at once.",
        "  -> action: add {'a': 1, 'b': 2}",
        "  -> action: add {'a': 3, 'b': 4}",
        "  > tool:add  input: {'a': 1, 'b': 2}",
        "  < tool:add  [T]  output: 3",
        "  > tool:add  input: {'a': 3, 'b': 4}",
        "  < tool:add  [T]  output: 7",
        "  -> finish: {'output': '3 and 7.'}",
        "< agent:AgentExecutor  [T]  tokens: 20 in / 4 out  output: "
        "{'input': '1+2, 3+4', 'output': '3 and 7.'}",
    ]


def test_nested_prints_every_run_inside_the_steps() -> None:
    model = S([S.tool_call("add", {"a": 1, "b": 2}, content="I will add."), "three"])
    assert trace(calling_agent(model), {"input": "1+2"}, nested=True) == [
        "> agent:AgentExecutor  input: {'input': '1+2'}",
        "  > chain:AgentRunnable",
        "    > chain:RunnableAssign<agent_scratchpad>",
        "      > chain:RunnableParallel<agent_scratchpad>",
        "        > chain:RunnableLambda",
        "        < chain:RunnableLambda  [T]  output: []",
        "      < chain:RunnableParallel<agent_scratchpad>  [T]  output: {'agent_scratchpad': []}",
        "    < chain:RunnableAssign<agent_scratchpad>  [T]  output: "
        "{'input': '1+2', 'intermediate_steps': [], 'agent_scratchpad': []}",
        "    > prompt:ChatPromptTemplate  input: "
        "{'input': '1+2', 'intermediate_steps': [], 'agent_scratchpad': []}",
        "    < prompt:ChatPromptTemplate  [T]  output: [human: '1+2']",
        "    > chat_model:ScriptedChatModel  input: [human: '1+2']",
        "    < chat_model:ScriptedChatModel  [T]  output: ai: 'I will add.' add({'a': 1, 'b': 2})",
        "    > parser:ToolsAgentOutputParser  input: ai: 'I will add.' add({'a': 1, 'b': 2})",
        "    < parser:ToolsAgentOutputParser  [T]  output: [ToolAgentAction(tool='add', "
        "tool_input={'a': 1, 'b': 2}, log=\"\\nInvoking: `add` with `{'a': 1, 'b': 2}`"
        "\\nresponded: ...",
        "  < chain:AgentRunnable  [T]  output: [ToolAgentAction(tool='add', "
        "tool_input={'a': 1, 'b': 2}, log=\"\\nInvoking: `add` with `{'a': 1, 'b': 2}`"
        "\\nresponded: ...",
        "  thought: I will add.",
        "  -> action: add {'a': 1, 'b': 2}",
        "  > tool:add  input: {'a': 1, 'b': 2}",
        "  < tool:add  [T]  output: 3",
        "  > chain:AgentRunnable",
        "    > chain:RunnableAssign<agent_scratchpad>",
        "      > chain:RunnableParallel<agent_scratchpad>",
        "        > chain:RunnableLambda",
        "        < chain:RunnableLambda  [T]  output: "
        "[ai: 'I will add.' add({'a': 1, 'b': 2}) | tool: '3']",
        "      < chain:RunnableParallel<agent_scratchpad>  [T]  output: {'agent_scratchpad': "
        "[AIMessageChunk(content='I will add.', tool_calls=[{'name': 'add', 'args': "
        "{'a': 1, 'b': 2}, 'id...",
        "    < chain:RunnableAssign<agent_scratchpad>  [T]  output: {'input': '1+2', "
        "'intermediate_steps': [(ToolAgentAction(tool='add', tool_input={'a': 1, 'b': 2}, "
        'log="\\nInvoking: `a...',
        "    > prompt:ChatPromptTemplate  input: {'input': '1+2', 'intermediate_steps': "
        "[(ToolAgentAction(tool='add', tool_input={'a': 1, 'b': 2}, log=\"\\nInvoking: `a...",
        "    < prompt:ChatPromptTemplate  [T]  output: "
        "[human: '1+2' | ai: 'I will add.' add({'a': 1, 'b': 2}) | tool: '3']",
        "    > chat_model:ScriptedChatModel  input: "
        "[human: '1+2' | ai: 'I will add.' add({'a': 1, 'b': 2}) | tool: '3']",
        "    < chat_model:ScriptedChatModel  [T]  output: ai: 'three'",
        "    > parser:ToolsAgentOutputParser  input: ai: 'three'",
        "    < parser:ToolsAgentOutputParser  [T]  output: "
        "AgentFinish(return_values={'output': 'three'}, log='three')",
        "  < chain:AgentRunnable  [T]  output: "
        "AgentFinish(return_values={'output': 'three'}, log='three')",
        "  -> finish: {'output': 'three'}",
        "< agent:AgentExecutor  [T]  output: {'input': '1+2', 'output': 'three'}",
    ]


def test_a_parse_error_shows_the_failed_step_and_what_the_model_is_told() -> None:
    executor = react_agent(
        "garbage",
        "Action: nope\nAction Input: hi",
        "Final Answer: done",
        handle_parsing_errors=True,
    )
    assert trace(executor, {"input": "x"}) == [
        "> agent:AgentExecutor  input: {'input': 'x'}",
        "  x chain:AgentRunnable  [T]  error: OutputParserException: "
        "Could not parse LLM output: `garbage`",
        "  -> action: _Exception \"Invalid Format: Missing 'Action:' after 'Thought:'\"",
        "  -> action: nope 'hi'",
        "  > tool:invalid_tool  input: "
        "{'requested_tool_name': 'nope', 'available_tool_names': ['echo']}",
        "  < tool:invalid_tool  [T]  output: 'nope is not a valid tool, try one of [echo].'",
        "  -> finish: {'output': 'done'}",
        "< agent:AgentExecutor  [T]  output: {'input': 'x', 'output': 'done'}",
    ]


def test_a_failing_model_shows_where_the_step_failed_and_how_the_run_ended() -> None:
    def fail(messages: Any, request: Any) -> str:
        raise ProviderError("model down", provider="fake")

    executor = calling_agent(FunctionChatModel(fail))
    out = io.StringIO()
    with pytest.raises(ProviderError, match="model down"):
        executor.invoke({"input": "1+2"}, {"callbacks": [ConsoleCallbackHandler(out, False)]})
    assert TIMING.sub("[T]", out.getvalue()).splitlines() == [
        "> agent:AgentExecutor  input: {'input': '1+2'}",
        "  x chain:AgentRunnable  [T]  error: ProviderError: model down",
        "x agent:AgentExecutor  [T]  error: ProviderError: model down",
    ]


def shout(text: str) -> str:
    return text.upper()


def bang(text: str) -> str:
    return text + "!"


def test_an_agent_inside_a_chain_and_a_chain_inside_a_tool() -> None:
    # Outside the agent every run prints; inside it only its tools, not their own runs.
    inner = RunnableLambda(shout) | RunnableLambda(bang)
    loud = convert_runnable_to_tool(inner, name="loud", description="Shout.")

    def pipeline() -> Runnable[str, dict[str, Any]]:
        model = S(["Action: loud\nAction Input: hi", "Final Answer: HI!"])
        executor = AgentExecutor(
            agent=create_react_agent(model, [loud], REACT_PROMPT), tools=[loud]
        )
        return RunnableLambda(lambda q: {"input": q}, name="ask") | executor

    assert trace(pipeline(), "hi") == [
        "> chain:RunnableSequence  input: 'hi'",
        "  > chain:ask  input: 'hi'",
        "  < chain:ask  [T]  output: {'input': 'hi'}",
        "  > agent:AgentExecutor  input: {'input': 'hi'}",
        "    -> action: loud 'hi'",
        "    > tool:loud  input: 'hi'",
        "    < tool:loud  [T]  output: 'HI!'",
        "    -> finish: {'output': 'HI!'}",
        "  < agent:AgentExecutor  [T]  output: {'input': 'hi', 'output': 'HI!'}",
        "< chain:RunnableSequence  [T]  output: {'input': 'hi', 'output': 'HI!'}",
    ]
    lines = trace(pipeline(), "hi", nested=True)
    assert "        > chain:shout  input: 'hi'" in lines
    assert "        < chain:bang  [T]  output: 'HI!'" in lines


@pytest.mark.parametrize(
    ("log", "thought"),
    [
        ("I should look.\nAction: search\nAction Input: x", "I should look."),
        ("Thought: I should look.\nAction 1: search\nAction 1 Input 1: x", "I should look."),
        ("Action: search\nAction Input: x", None),
        ('Thought: JSON next.\nAction:\n```json\n{"action": "search"}\n```', "JSON next."),
        ('I will look it up.\n{"action": "search", "action_input": "x"}', "I will look it up."),
        ('{"action": "search", "action_input": "x"}', None),
        ("Searching now. <tool>search</tool><tool_input>x", "Searching now."),
        ("two\nlines\nAction: search\nAction Input: x", "two\\nlines"),
    ],
)
def test_the_thought_is_what_the_model_wrote_before_its_action(
    log: str, thought: str | None
) -> None:
    out = io.StringIO()
    handler = ConsoleCallbackHandler(out, color=False)
    run_id = uuid4()
    handler.on_chain_start(None, {"input": "q"}, run_id=run_id, run_type="agent", name="A")
    handler.on_agent_action(AgentAction("search", "x", log), run_id=run_id)
    expected = ["> agent:A  input: {'input': 'q'}"]
    expected += [f"  thought: {thought}"] if thought else []
    assert out.getvalue().splitlines() == [*expected, "  -> action: search 'x'"]


@pytest.mark.parametrize(
    ("finish", "lines"),
    [
        (AgentFinish({"output": "4"}, "Sum done.\nFinal Answer: 4"), ["  thought: Sum done."]),
        (AgentFinish({"output": "4"}, "Final Answer: 4"), []),
        (AgentFinish({"output": "It is 4."}, "It is 4."), []),  # a tool-calling answer
        (AgentFinish({"output": "4"}, "<final_answer>4</final_answer>"), []),
    ],
)
def test_a_final_answer_shows_the_thought_before_it_only(
    finish: AgentFinish, lines: list[str]
) -> None:
    out = io.StringIO()
    handler = ConsoleCallbackHandler(out, color=False)
    run_id = uuid4()
    handler.on_chain_start(None, {}, run_id=run_id, run_type="agent", name="A")
    handler.on_agent_finish(finish, run_id=run_id)
    assert out.getvalue().splitlines()[1:] == [
        *lines,
        f"  -> finish: {finish.return_values!r}",
    ]


def test_structured_chat_and_xml_agents_show_their_thoughts() -> None:
    blob = '{"action": "echo", "action_input": {"text": "hi"}}'
    structured = create_structured_chat_agent(
        S([f"Thought: Echo it.\nAction:\n```\n{blob}\n```", FINAL_BLOB]),
        [echo],
        STRUCTURED_CHAT_PROMPT,
    )
    lines = trace(AgentExecutor(agent=structured, tools=[echo]), {"input": "hi"})
    assert lines[1:3] == ["  thought: Echo it.", "  -> action: echo {'text': 'hi'}"]
    xml = create_xml_agent(
        S(["Echoing. <tool>echo</tool><tool_input>hi", "<final_answer>hi</final_answer>"]),
        [echo],
        XML_PROMPT,
    )
    lines = trace(AgentExecutor(agent=xml, tools=[echo]), {"input": "hi"})
    assert lines[1:3] == ["  thought: Echoing.", "  -> action: echo 'hi'"]


FINAL_BLOB = '{"action": "Final Answer", "action_input": "hi"}'


def test_colours_of_thoughts_and_decisions() -> None:
    out = io.StringIO()
    executor = react_agent("Look.\nAction: echo\nAction Input: hi", "Final Answer: hi")
    executor.invoke({"input": "x"}, {"callbacks": [ConsoleCallbackHandler(out, color=True)]})
    lines = TIMING.sub("[T]", out.getvalue()).splitlines()
    assert lines[1:3] == [
        "  \x1b[2mthought: Look.\x1b[0m",
        "  \x1b[32m-> action: echo 'hi'\x1b[0m",
    ]
