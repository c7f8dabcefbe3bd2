"""The plain-Python implementation of every workload: the lower bound, no library at all.

Each does the same work as the libraries with the least machinery: a loop over functions, a
thread pool, ``asyncio.gather``, nested generators, and agent loops that format the same
prompt text, parse the same replies with string methods and call the same tool.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from benchmarks.compare.fake_server import (
    API_KEY,
    MODEL,
    TOOL_SCHEMA,
    script_one_run,
    start_server,
)
from benchmarks.compare.shared import (
    AGENT_INPUT,
    AGENT_OUTPUT,
    ITERATIONS,
    REACT_TEMPLATE,
    STRUCTURED_CHAT_HUMAN,
    STRUCTURED_CHAT_SYSTEM,
    TEXT_REPLIES,
    TOOL_CALL_ARGS,
    TOOL_CALLING_SYSTEM,
    XML_TEMPLATE,
    Cycle,
    aidentity,
    anap,
    count_events,
    double,
    echo_text,
    identity,
    nap,
    relay,
    source,
    triple,
)
from benchmarks.compare.spec import (
    CONCURRENT_TIMEOUT,
    EVENT_STEPS,
    EVENT_STREAMS,
    Call,
    Case,
    CaseFactory,
    Concurrent,
    Import,
    Settings,
)

__all__ = ["CASES", "concurrent_agent"]

TOOLS: Final[dict[str, Callable[..., str]]] = {"echo_text": echo_text}
TOOLS_TEXT: Final = "echo_text(text: str) -> str - Echo the text back."
TOOLS_TEXT_WITH_ARGS: Final = TOOLS_TEXT + ", args: {'text': {'title': 'Text', 'type': 'string'}}"
ACTION_RE: Final = re.compile(r"Action\s*:\s*(.*?)\s*Action\s*Input\s*:\s*(.*)", re.DOTALL)


class Step:
    """A pipeline step: a class with an ``invoke`` method that calls a function."""

    __slots__ = ("func",)

    def __init__(self, func: Callable[[Any], Any]) -> None:
        self.func = func

    def invoke(self, value: Any) -> Any:
        """Call the function."""
        return self.func(value)


class Handler:
    """The callback handler: counts chain starts and ends."""

    def __init__(self) -> None:
        self.starts = 0
        self.ends = 0

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> None:
        """Count a start."""
        self.starts += 1

    def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
        """Count an end."""
        self.ends += 1


class Pipeline:
    """A loop over its steps; with a handler, it reports itself and each step to it."""

    __slots__ = ("handler", "steps")

    def __init__(self, steps: list[Step], handler: Handler | None = None) -> None:
        self.steps = steps
        self.handler = handler

    def invoke(self, value: Any) -> Any:
        """Run the steps in order."""
        handler = self.handler
        if handler is None:
            for step in self.steps:
                value = step.invoke(value)
            return value
        nested = len(self.steps) > 1
        if nested:
            handler.on_chain_start(None, value)
        for step in self.steps:
            handler.on_chain_start(None, value)
            value = step.invoke(value)
            handler.on_chain_end(value)
        if nested:
            handler.on_chain_end(value)
        return value


def _invoke(n: int, traced: bool) -> CaseFactory:
    def build(settings: Settings) -> Case:
        pipeline = Pipeline([Step(identity) for _ in range(n)], Handler() if traced else None)
        return Call(lambda: pipeline.invoke(1), 1)

    return build


def _parallel(settings: Settings) -> Case:
    branches = dict.fromkeys("abcd", identity)
    # The bare work: the four calls one after the other. Any concurrency costs more than this
    # for trivial branches, so it is the lower bound (a thread pool takes ~50 µs here).
    return Call(lambda: {k: f(1) for k, f in branches.items()}, dict.fromkeys("abcd", 1))


def _assign_1(settings: Settings) -> Case:
    value = {"a": 1}
    return Call(lambda: {**value, "b": double(value)}, {"a": 1, "b": 2})


def _assign_2(settings: Settings) -> Case:
    value = {"a": 1}
    return Call(lambda: {**value, "b": double(value), "c": triple(value)}, {"a": 1, "b": 2, "c": 3})


def _batch(settings: Settings) -> Case:
    items = list(range(settings.batch_inputs))
    pool = ThreadPoolExecutor(max_workers=100)
    return Call(lambda: list(pool.map(nap, items)), items, pool.shutdown)


def _abatch(settings: Settings) -> Case:
    items = list(range(settings.batch_inputs))
    loop = asyncio.new_event_loop()

    async def gather() -> list[int]:
        semaphore = asyncio.Semaphore(100)

        async def one(x: int) -> int:
            async with semaphore:
                return await anap(x)

        return list(await asyncio.gather(*(one(x) for x in items)))

    return Call(lambda: loop.run_until_complete(gather()), items, loop.close)


def _event(kind: str, name: str, run_id: str, parents: list[str], data: Any) -> dict[str, Any]:
    return {
        "event": kind,
        "name": name,
        "run_id": run_id,
        "parent_ids": parents,
        "tags": [],
        "metadata": {},
        "data": data,
    }


async def _chain_events(value: Any) -> AsyncIterator[dict[str, Any]]:
    """The events of a chain of `EVENT_STEPS` awaited steps, written out by hand."""
    yield _event("on_chain_start", "chain", "0", [], {"input": value})
    for i in range(1, EVENT_STEPS + 1):
        run_id = str(i)
        yield _event("on_chain_start", "step", run_id, ["0"], {})
        output = await aidentity(value)
        yield _event("on_chain_stream", "step", run_id, ["0"], {"chunk": output})
        yield _event("on_chain_end", "step", run_id, ["0"], {"input": value, "output": output})
        value = output
    yield _event("on_chain_stream", "chain", "0", [], {"chunk": value})
    yield _event("on_chain_end", "chain", "0", [], {"output": value})


def _events(settings: Settings) -> Case:
    loop = asyncio.new_event_loop()
    return Call(
        lambda: loop.run_until_complete(count_events(lambda: _chain_events(1))),
        (3 * EVENT_STEPS + 3) * EVENT_STREAMS,
        loop.close,
    )


def _stream(steps: int) -> CaseFactory:
    def build(settings: Settings) -> Case:
        n = settings.stream_chunks

        def run() -> Any:
            chunks: Iterator[Any] = source(iter([n]))
            for _ in range(steps):
                chunks = relay(chunks)
            return deque(chunks, maxlen=1)[0]

        return Call(run, n - 1)

    return build


def _agent(loop: Callable[[Cycle], str], call: Any, answer: Any) -> CaseFactory:
    def build(settings: Settings) -> Case:
        model = Cycle(call, answer)
        return Call(lambda: loop(model), AGENT_OUTPUT)

    return build


def _tool_calling_loop(model: Cycle) -> str:
    steps: list[tuple[dict[str, Any], str]] = []
    while True:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": TOOL_CALLING_SYSTEM},
            {"role": "user", "content": AGENT_INPUT},
        ]
        for call, observation in steps:
            messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": observation})
        reply = model.answer(messages)
        calls = reply.get("tool_calls")
        if not calls:
            return str(reply["content"])
        for call in calls:
            steps.append((call, TOOLS[call["name"]](**call["args"])))


def _react_loop(model: Cycle) -> str:
    scratchpad = ""
    while True:
        prompt = REACT_TEMPLATE.format(
            tools=TOOLS_TEXT, tool_names="echo_text", input=AGENT_INPUT, agent_scratchpad=scratchpad
        )
        reply = model.answer(prompt)
        if "Final Answer:" in reply:
            return str(reply.split("Final Answer:")[-1].strip())
        match = ACTION_RE.search(reply)
        assert match is not None
        observation = TOOLS[match[1]](match[2].strip(" \"'"))
        scratchpad += f"{reply}\nObservation: {observation}\nThought: "


def _structured_chat_loop(model: Cycle) -> str:
    system = STRUCTURED_CHAT_SYSTEM.format(tools=TOOLS_TEXT_WITH_ARGS, tool_names="echo_text")
    scratchpad = ""
    while True:
        messages = [
            {"role": "system", "content": system},
            {
                "role": "user",
                "content": STRUCTURED_CHAT_HUMAN.format(
                    input=AGENT_INPUT, agent_scratchpad=scratchpad
                ),
            },
        ]
        reply = model.answer(messages)
        blob = json.loads(reply.split("```")[1].removeprefix("json"))
        if blob["action"] == "Final Answer":
            return str(blob["action_input"])
        observation = TOOLS[blob["action"]](**blob["action_input"])
        scratchpad += f"{reply}\nObservation: {observation}\nThought: "


def _xml_loop(model: Cycle) -> str:
    scratchpad = ""
    while True:
        prompt = XML_TEMPLATE.format(
            tools=TOOLS_TEXT, chat_history="", input=AGENT_INPUT, agent_scratchpad=scratchpad
        )
        reply = model.answer(prompt)
        if "</tool>" not in reply:
            return str(reply.split("<final_answer>")[1].split("</final_answer>")[0])
        tool = reply.split("<tool>")[1].split("</tool>")[0]
        tool_input = reply.split("<tool_input>")[1].removesuffix("</tool_input>")
        observation = TOOLS[tool](tool_input)
        scratchpad += (
            f"<tool>{tool}</tool><tool_input>{tool_input}</tool_input>"
            f"<observation>{observation}</observation>"
        )


def _first_messages() -> list[Any]:
    return [
        {"role": "system", "content": TOOL_CALLING_SYSTEM},
        {"role": "user", "content": AGENT_INPUT},
    ]


def _tool_results(message: Any) -> list[dict[str, Any]]:
    """The assistant message as it goes back, then one tool message per call.

    The assistant turn is written as leanchain and LangChain write it (the spec's form: its
    text, ``null`` when it has none, and the calls), so that every column sends the SDK the
    same request: the SDK's request transform does ~20% more work for a ``content: null``
    than for a turn without the key (``model_dump(exclude_none=True)``, this loop's earlier
    form), which is the SDK's cost, not a library's.
    """
    calls = [call.model_dump(exclude_none=True) for call in message.tool_calls]
    turn = {"role": "assistant", "content": message.content, "tool_calls": calls}
    items: list[dict[str, Any]] = [turn]
    for call in message.tool_calls:
        assert call.type == "function"
        args = json.loads(call.function.arguments)
        items.append({"role": "tool", "tool_call_id": call.id, "content": echo_text(**args)})
    return items


_TOOLS: Final[Any] = [TOOL_SCHEMA]


def _async_loop(client: Any) -> Callable[[], Any]:
    """The hand-written async agent loop over `client` (an ``openai.AsyncOpenAI``)."""

    async def run() -> str:
        messages = _first_messages()
        for _ in range(ITERATIONS):
            completion = await client.chat.completions.create(
                model=MODEL, messages=messages, tools=_TOOLS
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                return str(message.content)
            messages.extend(_tool_results(message))
        raise AssertionError("no final answer")

    return run


def _openai_agent(settings: Settings) -> Case:
    import openai

    server = start_server()
    client = openai.OpenAI(base_url=server.openai_base_url, api_key=API_KEY)

    def run() -> str:
        script_one_run(server)
        messages = _first_messages()
        for _ in range(ITERATIONS):
            completion = client.chat.completions.create(
                model=MODEL, messages=messages, tools=_TOOLS
            )
            message = completion.choices[0].message
            if not message.tool_calls:
                return str(message.content)
            messages.extend(_tool_results(message))
        raise AssertionError("no final answer")

    def close() -> None:
        client.close()
        server.stop()

    return Call(run, AGENT_OUTPUT, close)


def _openai_agent_async(settings: Settings) -> Case:
    import openai

    server = start_server()
    loop = asyncio.new_event_loop()
    client = openai.AsyncOpenAI(base_url=server.openai_base_url, api_key=API_KEY)
    agent = _async_loop(client)

    async def run() -> str:
        script_one_run(server)
        return str(await agent())

    def close() -> None:
        loop.run_until_complete(client.close())
        loop.close()
        server.stop()

    return Call(lambda: loop.run_until_complete(run()), AGENT_OUTPUT, close)


def concurrent_agent(base_url: str) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """The concurrent workload's lower bound: the hand-written async loop, one client."""
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key=API_KEY, timeout=CONCURRENT_TIMEOUT)
    return _async_loop(client), client.close


_AGENT_IMPORT: Final = f"import openai\nopenai.AsyncOpenAI(api_key={API_KEY!r})\n"
"""The plain agent program's imports: the SDK and a client, all the hand-written loop needs."""

_TOOL_CALL: Final = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"id": "call_1", "name": "echo_text", "args": TOOL_CALL_ARGS}],
}

CASES: Final[dict[str, CaseFactory]] = {
    **{
        f"import_{what}_{kind}": (lambda _settings: Import("pass"))
        for what in ("runnables", "parts", "openai", "top", "top_names")
        for kind in ("time", "memory")
    },
    **{
        f"import_agent_{kind}": (lambda _settings: Import(_AGENT_IMPORT))
        for kind in ("time", "memory")
    },
    **{f"invoke_{n}": _invoke(n, traced=False) for n in (1, 10, 100)},
    **{f"invoke_{n}_cb": _invoke(n, traced=True) for n in (1, 10, 100)},
    "parallel_4": _parallel,
    "assign_1": _assign_1,
    "assign_2": _assign_2,
    "batch": _batch,
    "abatch": _abatch,
    "stream_1": _stream(1),
    "stream_3": _stream(3),
    "events_10": _events,
    "agent_tool_calling": _agent(
        _tool_calling_loop, _TOOL_CALL, {"role": "assistant", "content": AGENT_OUTPUT}
    ),
    "agent_react": _agent(_react_loop, *TEXT_REPLIES["react"]),
    "agent_structured_chat": _agent(_structured_chat_loop, *TEXT_REPLIES["structured_chat"]),
    "agent_xml": _agent(_xml_loop, *TEXT_REPLIES["xml"]),
    "agent_openai": _openai_agent,
    "agent_openai_async": _openai_agent_async,
    "concurrent_time": lambda _settings: Concurrent("plain"),
    "concurrent_memory": lambda _settings: Concurrent("plain"),
}
"""Workload key → case factory."""
