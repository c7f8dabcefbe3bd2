"""A prompt | model | parser chain: invoke it, stream it, batch it.

Runs offline: the model is a `ScriptedChatModel` that plays its replies in order. Swap in
``ChatOpenAI(model=...)`` or ``ChatAnthropic(model=...)`` and nothing else changes.

    python examples/prompt_model_parser.py
"""

from __future__ import annotations

from leanchain.language_models import ScriptedChatModel
from leanchain.output_parsers import StrOutputParser
from leanchain.prompts import ChatPromptTemplate


def main() -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You write one-line slogans."),
            ("human", "A slogan for {product}, please."),
        ]
    )
    model = ScriptedChatModel(
        [
            "Leanchain: less code, more chain.",
            "Fast by construction.",
            "Coffee: the original async runtime.",
            "Tea: blocking, but calmly.",
        ]
    )
    chain = prompt | model | StrOutputParser()

    print("invoke:", chain.invoke({"product": "leanchain"}))

    print("stream:", end=" ")
    for token in chain.stream({"product": "leanchain"}):
        print(token, end="|", flush=True)
    print()

    print("batch:", chain.batch([{"product": "coffee"}, {"product": "tea"}]))

    # The model recorded what it was sent: the prompt's messages, filled in.
    first = model.requests[0].messages
    print("the model saw:", [(m.type, m.text) for m in first])


if __name__ == "__main__":
    main()
