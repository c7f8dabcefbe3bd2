"""Choose the model by configuration: offline by default, a real provider when a key is set.

`configurable_alternatives` makes one chain whose model is picked per call through
``config["configurable"]``. The real providers are given as functions, so `ChatOpenAI` and
`ChatAnthropic` are built (and their SDK imported) only when chosen.

    python examples/provider_switch.py                  # offline scripted model
    OPENAI_API_KEY=... python examples/provider_switch.py     # ChatOpenAI
    ANTHROPIC_API_KEY=... python examples/provider_switch.py  # ChatAnthropic
    LEANCHAIN_PROVIDER=offline python examples/provider_switch.py  # force offline

``OPENAI_BASE_URL`` points the OpenAI path at any OpenAI-compatible server.
"""

from __future__ import annotations

import os

from leanchain.language_models import BaseChatModel, FunctionChatModel
from leanchain.messages import BaseMessage
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate
from leanchain.runnables import ConfigurableField, RunnableConfig


def offline_reply(messages: list[BaseMessage], request: object) -> str:
    """The offline model's answer: it repeats the question."""
    return f"(offline) You asked: {messages[-1].text}"


def openai_model() -> BaseChatModel:
    """ChatOpenAI; the key (and base URL) come from OPENAI_API_KEY (and OPENAI_BASE_URL)."""
    from leanchain.providers import ChatOpenAI

    return ChatOpenAI(model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))


def anthropic_model() -> BaseChatModel:
    """ChatAnthropic; the key comes from ANTHROPIC_API_KEY."""
    from leanchain.providers import ChatAnthropic

    return ChatAnthropic(model=os.environ.get("ANTHROPIC_MODEL", "claude-sonnet-4-6"))


def chosen_provider() -> str:
    """The provider to use: ``LEANCHAIN_PROVIDER``, else the first key found, else offline."""
    forced = os.environ.get("LEANCHAIN_PROVIDER")
    if forced:
        return forced
    if os.environ.get("OPENAI_API_KEY"):
        return "openai"
    if os.environ.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    return "offline"


def main() -> None:
    model = FunctionChatModel(offline_reply).configurable_alternatives(
        ConfigurableField(id="provider", name="Provider"),
        default_key="offline",
        openai=openai_model,
        anthropic=anthropic_model,
    )
    chain = (
        ChatPromptTemplate.from_template("In one sentence: what is {topic}?")
        | model
        | StrOutputParser()
    )

    provider = chosen_provider()
    config: RunnableConfig = {"configurable": {"provider": provider}}
    print(f"provider: {provider}")
    print(chain.invoke({"topic": "a runnable"}, config))


if __name__ == "__main__":
    main()
