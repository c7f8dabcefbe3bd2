"""Property: the two sync deliveries of `stream_events` — on a producer thread, in the caller's
thread — yield the same events, in the same order, and end the same way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from leanchain.callbacks import StreamEvent
from leanchain.callbacks.events._sync import _in_caller, on_producer
from leanchain.runnables import (
    Runnable,
    RunnableBranch,
    RunnableGenerator,
    RunnableLambda,
    RunnablePassthrough,
    ensure_config,
)


def _add(n: int) -> Runnable[Any, Any]:
    return RunnableLambda(lambda x: x + n, name=f"add{n}")


def _relay(chunks: Iterator[Any]) -> Iterator[Any]:
    yield from chunks


def _fail(x: int) -> int:
    raise LookupError(f"no {x}")


_leaves = st.one_of(
    st.integers(0, 3).map(_add),
    st.just(RunnableGenerator(_relay, name="relay")),
    st.just(RunnablePassthrough()),
    st.just(RunnableLambda(_fail, name="fail")),
)


def _sequence(steps: list[Runnable[Any, Any]]) -> Runnable[Any, Any]:
    chain = steps[0]
    for step in steps[1:]:
        chain = chain | step
    return chain


def _branch(parts: tuple[Runnable[Any, Any], Runnable[Any, Any]]) -> Runnable[Any, Any]:
    return RunnableBranch((lambda x: x % 2 == 0, parts[0]), parts[1])


_chains = st.recursive(
    _leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=4).map(_sequence),
        st.tuples(inner, inner).map(_branch),
    ),
    max_leaves=8,
)


def _collect(events: Iterator[StreamEvent]) -> tuple[list[tuple[Any, ...]], str | None]:
    """The events with run ids replaced by their order of appearance, and how the run ended."""
    ids: dict[str, int] = {}

    def number(run_id: str) -> int:
        return ids.setdefault(run_id, len(ids))

    seen: list[tuple[Any, ...]] = []
    try:
        for event in events:
            seen.append(
                (
                    event["event"],
                    event["name"],
                    number(event["run_id"]),
                    [number(parent) for parent in event["parent_ids"]],
                    event["tags"],
                    event["data"],
                )
            )
    except LookupError as error:
        return seen, str(error)
    return seen, None


@settings(max_examples=150, deadline=None)
@given(_chains, st.integers(0, 5))
def test_both_deliveries_yield_the_same_events(chain: Runnable[Any, Any], value: int) -> None:
    config = ensure_config({"tags": ["t"]})
    on_thread = _collect(on_producer(chain, value, config, None, {}))
    in_caller = _collect(_in_caller(chain, value, config, None, {}))
    assert in_caller == on_thread
    events, error = on_thread
    assert events[0][:3] == ("on_chain_start", chain.get_name(), 0)
    if error is None:
        assert events[-1][0] == "on_chain_end"
        assert events[-1][2] == 0
