"""A cassette as a report: one run whose steps are its model calls, in the order they came.

The entries come from `leanchain.testing`'s reader (``leanchain.testing.cassettes``, or a
`Cassette` in use): this module never reads the cassette file itself. Each call becomes a
model step with its prompt (every request message), its reply (text and tool calls), its
tokens and its request settings. A cassette file keeps no times, so a report made from one
alone is untimed (`RunRecord.timed` false): the n-th call is placed from n - 1 to n. The
cassette's own ``report=`` option knows when each call ran and passes the times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from leanchain.messages import AIMessage, BaseMessage, message_chunk_to_message
from leanchain.report._collect import (
    error_record,
    model_name,
    reply_data,
    request_settings,
    token_usage,
    utc_now,
)
from leanchain.report._model import ModelPrice, Report, RunRecord, StepRecord
from leanchain.report._plain import message_data

if TYPE_CHECKING:
    from leanchain.testing import CassetteEntry

__all__ = ["report_from_cassette"]


def _prompt(entry: CassetteEntry, number: int) -> list[Any]:
    # Imported here: `import leanchain.report` stays free of the testing package.
    from leanchain.testing.cassettes import message_from_data

    where = f"cassette call {number} request message"
    return [
        message_data(message_from_data(data, f"{where} {i}"))
        for i, data in enumerate(entry.request.get("messages", ()), 1)
    ]


def _reply(entry: CassetteEntry) -> BaseMessage | None:
    if entry.reply is not None:
        return entry.reply
    if not entry.chunks:
        return None
    first, *rest = entry.chunks
    return message_chunk_to_message(first + rest if rest else first)


def _settings(entry: CassetteEntry) -> dict[str, Any]:
    request = entry.request
    model = request.get("model")
    params = model.get("params") if isinstance(model, Mapping) else None
    kwargs = request.get("kwargs")
    asked: dict[str, Any] = {
        **(params if isinstance(params, Mapping) else {}),
        **(kwargs if isinstance(kwargs, Mapping) else {}),
    }
    for key in ("stop", "tool_choice", "tools"):
        if key in request:
            asked[key] = request[key]
    return {"call": entry.call, **(request_settings(asked) or {})}


def _model_step(
    entry: CassetteEntry, number: int, span: tuple[float, float], error: BaseException | None
) -> StepRecord:
    model = entry.request.get("model")
    params = model.get("params") if isinstance(model, Mapping) else None
    reply = _reply(entry)
    return StepRecord(
        kind="model",
        name=entry.model,
        parent=0,
        start=round(span[0], 6),
        end=round(span[1], 6),
        error=None if error is None else error_record(error),
        input=_prompt(entry, number),
        output=None if reply is None else reply_data(reply),
        model=model_name(params if isinstance(params, Mapping) else {}, entry.model),
        usage=None if reply is None else token_usage(cast(AIMessage, reply)),
        settings=_settings(entry),
    )


def report_from_cassette(
    entries: Sequence[CassetteEntry],
    *,
    name: str = "cassette",
    title: str | None = None,
    prices: Mapping[str, ModelPrice | Mapping[str, float]] | None = None,
    currency: str = "USD",
    times: Sequence[tuple[float, float]] | None = None,
    errors: Sequence[BaseException | None] | None = None,
    error: BaseException | None = None,
    started_at: str | None = None,
) -> Report:
    """The report of a cassette's model calls: one run, a model step per call, in order.

    Args:
        entries: the calls (``leanchain.testing.cassettes.load_entries(path)`` reads a file).
        name: the run's name.
        title: the page's title (default: `name`).
        prices: model name → its price per million tokens, to cost the calls with.
        currency: what the prices are in.
        times: when each call started and ended, in seconds from the run's start; without
            them the run is untimed and its calls are placed by their order.
        errors: for each call, what it raised (``None`` for a call that answered).
        error: what the whole run raised, if it failed.
        started_at: when the run started, ISO 8601 in UTC (default: now).

    Raises:
        ValueError: `times` or `errors` do not give one item per entry, a time is negative
            or a call ends before it starts; a price is not a price; a request message
            is not one leanchain can read (a `CassetteFormatError`).
    """
    from leanchain import __version__

    count = len(entries)
    for what, given in (("times", times), ("errors", errors)):
        if given is not None and len(given) != count:
            raise ValueError(f"{what} must give one item per entry: {count}, got {len(given)}")
    spans = [(float(i), float(i + 1)) for i in range(count)] if times is None else list(times)
    for number, (start, end) in enumerate(spans, 1):
        if not 0 <= start <= end:
            raise ValueError(
                f"call {number}: a call starts at 0 s or later and ends after it starts, "
                f"got {start!r} to {end!r}"
            )
    failures = [None] * count if errors is None else list(errors)
    steps = [
        _model_step(entry, number, span, failure)
        for number, (entry, span, failure) in enumerate(
            zip(entries, spans, failures, strict=True), 1
        )
    ]
    root = StepRecord(
        kind="chain",
        name=name,
        start=0.0,
        end=round(max((end for _, end in spans), default=0.0), 6),
        error=None if error is None else error_record(error),
        input=name,
        output=None if error is not None else f"{count} model call{'' if count == 1 else 's'}",
    )
    run = RunRecord(
        name=name,
        started_at=started_at or utc_now(),
        steps=(root, *steps),
        timed=times is not None,
    )
    return Report(
        title=name if title is None else title,
        created_at=utc_now(),
        leanchain_version=__version__,
        currency=currency,
        prices={
            model: price if isinstance(price, ModelPrice) else ModelPrice.model_validate(price)
            for model, price in (prices or {}).items()
        },
        runs=(run,),
    )
