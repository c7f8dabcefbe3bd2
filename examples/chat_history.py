"""A chat loop whose history is kept short by `trim_messages` before the model.

Each turn appends the user's message to the history and sends it through
``trim_messages(...) | model``: the system prompt is kept, then the latest messages that fit
the budget (here counted in messages, ``token_counter=len``), starting on a human turn. The
full history keeps growing; the model sees only its end. Runs offline: the model is a
`ScriptedChatModel` that plays its replies in order.

    python examples/chat_history.py
"""

from __future__ import annotations

from leanchain.language_models import ScriptedChatModel
from leanchain.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, trim_messages


def main() -> None:
    model = ScriptedChatModel(
        ["Hi Ada.", "Blue, noted.", "You like blue; your name is no longer in what I see."]
    )
    trimmer = trim_messages(
        max_tokens=4,
        token_counter=len,
        strategy="last",
        start_on="human",
        include_system=True,
    )
    chain = trimmer | model

    history: list[BaseMessage] = [SystemMessage("Be brief.")]
    for turn, text in enumerate(["I am Ada.", "I like blue.", "Who am I?"]):
        history.append(HumanMessage(text))
        reply = chain.invoke(history)
        assert isinstance(reply, AIMessage)
        history.append(reply)
        seen = [f"{m.type}: {m.text}" for m in model.requests[turn].messages]
        print(f"turn {turn + 1} the model saw:", " | ".join(seen))
        print(f"turn {turn + 1} reply:", reply.text)

    print("history kept:", len(history), "messages")


if __name__ == "__main__":
    main()
