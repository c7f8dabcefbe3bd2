"""The report's data: a versioned, plain-JSON record of one or more runs.

The JSON form (``Report.to_json``, read back by `load_report`)::

    {"format": "leanchain.report", "version": 1, "title": ..., "created_at": ...,
     "leanchain_version": ..., "currency": "USD", "prices": {model: {"input": ...}},
     "runs": [{"name": ..., "kind": ..., "started_at": ..., "steps": [...], "events": [...]}]}

A run's steps are listed in the order they started; a step's ``parent`` is the index of the
step it ran inside. Times are seconds since the run started; a run made from a cassette file,
which keeps no times, says ``"timed": false`` and places its steps by their order instead.
Content (``input``, ``output``) is plain JSON data; nothing is ever revived from it.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from leanchain.errors import LeanchainError

__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "ErrorRecord",
    "EventRecord",
    "ModelPrice",
    "Report",
    "ReportFormatError",
    "RunRecord",
    "StepKind",
    "StepRecord",
    "TokenUsage",
    "load_report",
]

REPORT_FORMAT: Final = "leanchain.report"
"""The ``format`` field of every report."""
REPORT_VERSION: Final = 1
"""The version of the JSON form this leanchain writes and reads."""

StepKind = Literal["agent", "plan", "model", "tool", "chain", "prompt", "parser"]
"""What a step is: an agent run, one planning call of it, a chat model call, a tool call,
or another runnable (a chain, a prompt template, an output parser)."""

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ReportFormatError(LeanchainError, ValueError):
    """A text that is not a report this leanchain can read; says what was wrong."""


class ModelPrice(BaseModel):
    """What one model's tokens cost, per million tokens (in the report's currency)."""

    model_config = _FROZEN

    input: float = Field(ge=0)
    """The price of a million input (prompt) tokens."""
    output: float = Field(ge=0)
    """The price of a million output (completion) tokens."""
    cached_input: float | None = Field(default=None, ge=0)
    """The price of a million input tokens read from the provider's cache; ``None``: the
    input price."""

    def cost(self, usage: TokenUsage) -> float:
        """What `usage` cost at these prices."""
        cached = usage.cached_input_tokens if self.cached_input is not None else 0
        fresh = max(usage.input_tokens - cached, 0)
        total = fresh * self.input + cached * (self.cached_input or 0.0)
        return (total + usage.output_tokens * self.output) / 1_000_000


class TokenUsage(BaseModel):
    """The tokens of one model call, as the provider reported them."""

    model_config = _FROZEN

    input_tokens: int = 0
    """Prompt tokens, cached ones included."""
    output_tokens: int = 0
    """Completion tokens."""
    total_tokens: int = 0
    """Both together."""
    cached_input_tokens: int = 0
    """Prompt tokens read from the provider's cache."""


class ErrorRecord(BaseModel):
    """An exception a step raised (or a tool's error result)."""

    model_config = _FROZEN

    type: str
    """The exception's class, qualified by its module unless a builtin."""
    message: str
    """Its message."""


class StepRecord(BaseModel):
    """One step of a run: its kind, name, when it ran, and what went in and came out."""

    model_config = _FROZEN

    kind: StepKind
    """What the step is."""
    name: str
    """The runnable's, model's or tool's name."""
    parent: int | None = None
    """The index of the step this one ran inside (``None`` for the run's first step)."""
    start: float
    """Seconds from the run's start to this step's start."""
    end: float | None = None
    """Seconds from the run's start to this step's end; ``None``: it had not ended."""
    error: ErrorRecord | None = None
    """What went wrong, if the step failed."""
    input: JsonValue = None
    """What the step was given: a model's prompt messages, a tool's arguments, a chain's
    input (``None`` for a planning call: its model step has the prompt)."""
    output: JsonValue = None
    """What it returned: a model's reply message, a tool's observation, a decision."""
    model: str | None = None
    """A model step's model name."""
    usage: TokenUsage | None = None
    """A model step's tokens."""
    settings: dict[str, JsonValue] | None = None
    """A model step's request settings (temperature, stop sequences, tool names...)."""
    tool_call_id: str | None = None
    """A tool step's call id, when the model gave one."""

    @property
    def status(self) -> Literal["ok", "error", "running"]:
        """``error`` if it failed, ``running`` if it had not ended, else ``ok``."""
        if self.error is not None:
            return "error"
        return "running" if self.end is None else "ok"


class EventRecord(BaseModel):
    """A point in time of a run: a custom event (a guard's, a user's) or a retry."""

    model_config = _FROZEN

    kind: Literal["custom", "retry"]
    """``custom`` for ``on_custom_event``, ``retry`` for ``on_retry``."""
    name: str
    """The event's name (``"retry"`` for a retry)."""
    time: float
    """Seconds from the run's start."""
    step: int | None = None
    """The index of the step it was reported under."""
    data: JsonValue = None
    """What came with it (a guard's data has at least ``action`` and ``message``)."""


class RunRecord(BaseModel):
    """One run (one root invocation, or one item of a batch): its steps and events."""

    model_config = _FROZEN

    name: str
    """The first step's name."""
    started_at: str
    """When it started, ISO 8601 in UTC."""
    steps: tuple[StepRecord, ...]
    """Every step, in the order they started; the first is the run itself."""
    events: tuple[EventRecord, ...] = ()
    """Custom events and retries, in the order they came."""
    timed: bool = Field(default=True, exclude_if=lambda timed: timed is True)
    """Whether the steps' ``start`` and ``end`` are seconds. ``False`` for a run whose source
    kept no times (a cassette file): its steps are placed by their order instead, the n-th
    model call from n - 1 to n. Written only when false."""

    @model_validator(mode="after")
    def _check_links(self) -> Self:
        if not self.steps:
            raise ValueError("a run needs at least one step (the run itself)")
        for index, step in enumerate(self.steps):
            if step.parent is not None and not 0 <= step.parent < index:
                raise ValueError(
                    f"step {index} names parent {step.parent}: a parent must be an earlier step"
                )
        for event in self.events:
            if event.step is not None and not 0 <= event.step < len(self.steps):
                raise ValueError(f"an event names step {event.step}, which the run does not have")
        return self

    @property
    def root(self) -> StepRecord:
        """The run's own step."""
        return self.steps[0]


class Report(BaseModel):
    """Runs as a report: what `ReportCallbackHandler` collected, or what a JSON file held."""

    model_config = _FROZEN

    format: Literal["leanchain.report"] = REPORT_FORMAT
    """Always ``"leanchain.report"``."""
    version: Literal[1] = REPORT_VERSION
    """The version of this JSON form."""
    title: str = "leanchain run report"
    """The page's title."""
    created_at: str
    """When the report was made, ISO 8601 in UTC."""
    leanchain_version: str
    """The leanchain that made it."""
    currency: str = "USD"
    """What the prices are in (a label only)."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """Model name → its price; model calls of other models have no cost."""
    runs: tuple[RunRecord, ...] = ()
    """The runs, in the order they started."""

    def to_json(self, *, indent: int | None = 1) -> str:
        """The report as JSON text (what `load_report` reads back)."""
        return json.dumps(self.model_dump(mode="json"), ensure_ascii=False, indent=indent)


def _first_errors(error: ValidationError) -> str:
    shown = []
    for item in error.errors()[:3]:
        where = ".".join(str(part) for part in item["loc"]) or "the report"
        shown.append(f"{where}: {item['msg']}")
    more = error.error_count() - len(shown)
    return "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")


def load_report(text: str | bytes) -> Report:
    """Read a report from its JSON form.

    Raises:
        ReportFormatError: the text is not JSON, not a leanchain report, of a version this
            leanchain cannot read, or its content does not fit the format (the message says
            where).
    """
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReportFormatError(f"a report is JSON text, but this is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        raise ReportFormatError(
            f'not a leanchain report: expected a JSON object with "format": {REPORT_FORMAT!r}'
        )
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ReportFormatError(f"a report's version is a whole number from 1, got {version!r}")
    if version > REPORT_VERSION:
        raise ReportFormatError(
            f"this report has version {version}, written by a newer leanchain; this one "
            f"reads version {REPORT_VERSION}"
        )
    try:
        return Report.model_validate(data)
    except ValidationError as exc:
        raise ReportFormatError(
            f"the report does not fit format version 1: {_first_errors(exc)}"
        ) from None
    except RecursionError:
        raise ReportFormatError("the report's content is nested too deep to read") from None
