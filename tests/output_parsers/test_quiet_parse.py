"""`BaseOutputParser._quiet_parse`: what `invoke`/`ainvoke` do with a model's text or message
when no handler listens, for a caller that checked its config already (an agent's planning
call). It must be exactly that call: the same value or error, and ``None`` whenever the
parser's class has its own `invoke`, `ainvoke`, `_ainvoke` or `aparse_result`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leanchain.callbacks import BaseCallbackHandler
from leanchain.messages import AIMessage
from leanchain.output_parsers import (
    BaseOutputParser,
    CommaSeparatedListOutputParser,
    JsonOutputParser,
    StrOutputParser,
)
from leanchain.outputs import Generation
from leanchain.runnables import RunnableConfig
from outcome_support import outcome

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TRACED: RunnableConfig = {"callbacks": [BaseCallbackHandler()]}
PARSERS: list[Callable[[], BaseOutputParser[Any]]] = [
    StrOutputParser,
    JsonOutputParser,
    CommaSeparatedListOutputParser,
]
texts = st.text(alphabet='{}[]",:01 ab\n`json', max_size=30)
outputs = st.one_of(texts, texts.map(AIMessage))


@SETTINGS
@given(make=st.sampled_from(PARSERS), output=outputs)
def test_the_quiet_parse_is_invoke_and_ainvoke(
    make: Callable[[], BaseOutputParser[Any]], output: str | AIMessage
) -> None:
    parser = make()
    parse = parser._quiet_parse()
    assert parse is not None
    quiet = outcome(lambda: parse(output))
    assert quiet == outcome(lambda: parser.invoke(output, TRACED))
    assert quiet == outcome(lambda: asyncio.run(parser.ainvoke(output, TRACED)))
    assert quiet == outcome(lambda: parser.invoke(output))


class OwnInvoke(StrOutputParser):
    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "own"


class OwnAinvoke(StrOutputParser):
    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return "own"


class OwnInnerAinvoke(StrOutputParser):
    async def _ainvoke(self, input: Any, config: RunnableConfig, run: Any) -> str:
        return "own"


class OwnAsyncReading(StrOutputParser):
    async def aparse_result(self, result: list[Generation], *, partial: bool = False) -> str:
        return "own"


@pytest.mark.parametrize("cls", [OwnInvoke, OwnAinvoke, OwnInnerAinvoke, OwnAsyncReading])
def test_a_parser_with_its_own_entry_has_no_quiet_parse(cls: type[StrOutputParser]) -> None:
    assert cls()._quiet_parse() is None


def test_a_parser_with_its_own_parse_result_is_read_through_it() -> None:
    class Shouts(StrOutputParser):
        def parse_result(self, result: list[Generation], *, partial: bool = False) -> str:
            return super().parse_result(result).upper()

    parse = Shouts()._quiet_parse()
    assert parse is not None
    assert parse(AIMessage("hi")) == parse("hi") == "HI"
