"""Ready-made prompts, one per agent type, in leanchain's own words.

Each prompt has the structure the matching factory and parser rely on (``reference`` §6.6):
the variables the factory checks, the message roles, and the keywords or tags the parser reads
and the stop sequence cuts at. Every prompt takes the user's request as ``input``; the
factories fill ``tools`` and ``tool_names`` in, and the agent fills ``agent_scratchpad``.

| prompt | factory | variables |
|---|---|---|
| `TOOL_CALLING_PROMPT` (alias `OPENAI_TOOLS_PROMPT`) | ``create_tool_calling_agent``, ``create_openai_tools_agent`` | ``input``, ``agent_scratchpad`` (messages); optional ``chat_history`` (messages) |
| `REACT_PROMPT` | ``create_react_agent`` | ``tools``, ``tool_names``, ``input``, ``agent_scratchpad`` (text) |
| `STRUCTURED_CHAT_PROMPT` | ``create_structured_chat_agent`` | ``tools``, ``tool_names``, ``input``, ``agent_scratchpad`` (text); optional ``chat_history`` (messages) |
| `XML_PROMPT` | ``create_xml_agent`` | ``tools``, ``input``, ``agent_scratchpad`` (text); ``chat_history`` (text, ``""`` by default) |
| `JSON_CHAT_PROMPT` | ``create_json_chat_agent`` | ``tools``, ``tool_names``, ``input``, ``agent_scratchpad`` (messages); optional ``chat_history`` (messages) |

`TEMPLATE_TOOL_RESPONSE` is the JSON chat agent's default ``template_tool_response``: the human
message that carries each tool's result back to the model.
"""  # noqa: E501

from __future__ import annotations

from typing import Any, Final

from leanchain.agents.output_parsers.react_single_input import FORMAT_INSTRUCTIONS
from leanchain.prompts import ChatPromptTemplate, MessagesPlaceholder, PromptTemplate

__all__ = [
    "JSON_CHAT_PROMPT",
    "OPENAI_TOOLS_PROMPT",
    "REACT_PROMPT",
    "STRUCTURED_CHAT_PROMPT",
    "TEMPLATE_TOOL_RESPONSE",
    "TOOL_CALLING_PROMPT",
    "XML_PROMPT",
]


def _chat_prompt(
    system: str, human: str, *, scratchpad_messages: bool = True
) -> ChatPromptTemplate:
    """The chat prompts' shape: the system message, an optional ``chat_history``, the human
    turn, then the steps so far as messages (``agent_scratchpad``) unless the human turn holds
    a text scratchpad."""
    messages: list[Any] = [
        ("system", system),
        MessagesPlaceholder("chat_history", optional=True),
        ("human", human),
    ]
    if scratchpad_messages:
        messages.append(MessagesPlaceholder("agent_scratchpad"))
    return ChatPromptTemplate(messages)


TOOL_CALLING_SYSTEM: Final = (
    "You are a helpful assistant. Call the tools you are given whenever they help you answer "
    "accurately; when you have what you need, reply to the user directly."
)

TOOL_CALLING_PROMPT: Final = _chat_prompt(TOOL_CALLING_SYSTEM, "{input}")
"""System persona, optional ``chat_history``, the human ``{input}``, then the tool messages of
the steps so far (``agent_scratchpad``). The tools are bound natively, so the prompt has no
format keywords."""

OPENAI_TOOLS_PROMPT: Final = TOOL_CALLING_PROMPT
"""The same prompt, for ``create_openai_tools_agent``."""

REACT_TEMPLATE: Final = (
    "Answer the question below as well as you can. You can use these tools:\n"
    "\n"
    "{tools}\n"
    "\n"
    f"{FORMAT_INSTRUCTIONS}\n"
    "\n"
    "Begin!\n"
    "\n"
    "Question: {input}\n"
    "Thought:{agent_scratchpad}"
)

REACT_PROMPT: Final = PromptTemplate(REACT_TEMPLATE)
"""One text prompt: the tools, the Thought / Action / Action Input / Observation / Final Answer
protocol, then ``Question: {input}`` and ``Thought:{agent_scratchpad}``."""

STRUCTURED_CHAT_SYSTEM: Final = """You are a helpful assistant. Answer the human as helpfully \
and accurately as you can. You can use these tools:

{tools}

To use a tool, write a JSON blob with two keys: "action", the tool's name, and \
"action_input", the tool's input (matching the tool's args).

Valid "action" values: "Final Answer" or {tool_names}

A blob holds exactly ONE action, like this:

```
{{
  "action": $TOOL_NAME,
  "action_input": $INPUT
}}
```

Use this format:

Question: the request to answer
Thought: what you know so far and what to do next
Action:
```
$JSON_BLOB
```
Observation: the result of the action
... (Thought / Action / Observation may repeat as many times as needed)
Thought: I know what to answer
Action:
```
{{
  "action": "Final Answer",
  "action_input": "your answer to the human"
}}
```

Begin! Always reply with one valid JSON blob holding a single action. Use a tool when you \
need one, and answer with "Final Answer" as soon as you can. The format is \
Action:```$JSON_BLOB``` and then Observation; never write an Observation yourself."""

STRUCTURED_CHAT_HUMAN: Final = (
    "{input}\n\n{agent_scratchpad}\n"
    "(Whatever you want to say, reply with one JSON blob holding a single action.)"
)

STRUCTURED_CHAT_PROMPT: Final = _chat_prompt(
    STRUCTURED_CHAT_SYSTEM, STRUCTURED_CHAT_HUMAN, scratchpad_messages=False
)
"""A system message with the tools (``{tools}``, ``{tool_names}``) and the JSON-blob protocol,
optional ``chat_history``, then a human message with ``{input}``, the text scratchpad and a
reminder to answer with one JSON blob."""

XML_TEMPLATE: Final = """You are a helpful assistant. Answer the user's question as well as \
you can.

You can use these tools:

{tools}

To use a tool, write its name between <tool></tool> tags and its input between \
<tool_input></tool_input> tags. The tool's result comes back between \
<observation></observation> tags. For example, with a tool called 'search' that looks things \
up online, to find the weather in Paris you would write:

<tool>search</tool><tool_input>weather in Paris</tool_input>

and get back:

<observation>18 degrees and sunny</observation>

Use one tool at a time. When you know the answer, write it between \
<final_answer></final_answer> tags, for example:

<final_answer>It is 18 degrees and sunny in Paris.</final_answer>

Begin!

Previous conversation:
{chat_history}

Question: {input}
{agent_scratchpad}"""

XML_PROMPT: Final = PromptTemplate(XML_TEMPLATE, partial_variables={"chat_history": ""})
"""One text prompt: the tools, the ``<tool>``/``<tool_input>``/``<observation>``/
``<final_answer>`` protocol with examples, the previous conversation (``chat_history``, a
string, empty unless given), ``Question: {input}`` and the XML scratchpad."""

JSON_CHAT_SYSTEM: Final = """You are a helpful assistant. Answer the user as helpfully and \
accurately as you can.

TOOLS
-----
You can have one of these tools run, to find information that helps you answer:

{tools}

RESPONSE FORMAT
---------------
Always reply with a markdown code snippet holding one JSON blob with a single action, in one \
of two forms.

To use a tool:

```json
{{
    "action": "$TOOL_NAME",
    "action_input": $INPUT
}}
```

where $TOOL_NAME is one of: {tool_names}; and $INPUT is the tool's input: a string, or an \
object for a tool that takes several arguments. The tool's response comes back to you in the \
next message.

To answer the user:

```json
{{
    "action": "Final Answer",
    "action_input": "your answer to the user"
}}
```"""

JSON_CHAT_HUMAN: Final = (
    "{input}\n\n"
    "(Reply with a markdown code snippet holding one JSON blob with a single action, and "
    "nothing else.)"
)

JSON_CHAT_PROMPT: Final = _chat_prompt(JSON_CHAT_SYSTEM, JSON_CHAT_HUMAN)
"""A system message with the tools (``{tools}``, ``{tool_names}``) and the JSON-blob protocol,
optional ``chat_history``, a human message with ``{input}`` and a reminder to answer with one
JSON blob, then the steps so far as messages (``agent_scratchpad``: each reply, then the tool's
response in `TEMPLATE_TOOL_RESPONSE`). LangChain's hub prompt ``hwchase17/react-chat-json`` has
the same variables and roles."""

TEMPLATE_TOOL_RESPONSE: Final = """TOOL RESPONSE:
--------------
{observation}

USER'S INPUT
------------
Now reply to my last message. If you use information from the tool responses, state it \
explicitly, without naming the tools: I cannot see the tool responses. Reply only with a \
markdown code snippet holding one JSON blob with a single action, even if you simply want to \
answer me."""
"""The human message after each step of a JSON chat agent: the tool's response under a
heading, then a reminder to answer the user's last message with one JSON blob. ``{observation}``
is its only variable."""
