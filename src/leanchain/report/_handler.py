"""`ReportCallbackHandler`: collects runs as they happen, for a report page or its JSON.

Which runs become steps: the run the handler sees first (the root: an agent, a chain, a
model or a tool), every agent run, each planning call of an agent (the agent runnable's run
inside the executor's), every chat model call and every tool call, and the direct steps of
a root chain. The plumbing inside those (an agent's scratchpad assignment, prompt and
parser; a chain's nested lambdas) makes no step of its own: what runs inside it hangs under
the nearest step above, and its failure shows on that step when it propagates there.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from uuid import UUID

from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.messages import BaseMessage
from leanchain.report._collect import (
    RunInProgress,
    StepInProgress,
    error_record,
    model_name,
    reply_data,
    reply_message,
    request_settings,
    token_usage,
    utc_now,
)
from leanchain.report._model import ErrorRecord, EventRecord, ModelPrice, Report, StepKind
from leanchain.report._plain import message_data, plain

__all__ = ["ReportCallbackHandler"]


class ReportCallbackHandler(BaseCallbackHandler):
    """Collects every run it sees for a self-contained HTML report (or its JSON form).

    Pass it in a run's config, then write the page::

        handler = ReportCallbackHandler(prices={"gpt-4o-mini": {"input": 0.15, "output": 0.6}})
        executor.invoke({"input": question}, {"callbacks": [handler]})
        handler.write_html("run.html")

    Each root run (each item of a batch too) becomes one section of the page. The handler
    keeps what the runs saw and said (prompts, replies, tool arguments and results) until
    `clear` is called. It is safe to use from concurrent tool calls and concurrent runs.

    Args:
        title: the page's title.
        prices: model name → its price per million tokens (a `ModelPrice` or a dict of its
            fields); model calls of other models have tokens but no cost.
        currency: what the prices are in (shown next to costs).

    Raises:
        pydantic.ValidationError: (a ``ValueError``) a price is not a price.
    """

    def __init__(
        self,
        *,
        title: str = "leanchain run report",
        prices: Mapping[str, ModelPrice | Mapping[str, float]] | None = None,
        currency: str = "USD",
    ) -> None:
        self.title = title
        self.currency = currency
        self.prices: dict[str, ModelPrice] = {
            name: price if isinstance(price, ModelPrice) else ModelPrice.model_validate(price)
            for name, price in (prices or {}).items()
        }
        self._lock = threading.Lock()
        self._runs: list[RunInProgress] = []
        self._steps: dict[int, tuple[RunInProgress, int]] = {}
        """Runs in progress that are steps → their run and index."""
        self._through: dict[int, tuple[RunInProgress, int]] = {}
        """Runs in progress that are no step → the step above them."""

    # -- the collected report ---------------------------------------------------------------

    def report(self) -> Report:
        """What has been collected so far (runs still going show their steps as running)."""
        from leanchain import __version__

        with self._lock:
            runs = tuple(run.record() for run in self._runs)
        return Report(
            title=self.title,
            created_at=utc_now(),
            leanchain_version=__version__,
            currency=self.currency,
            prices=self.prices,
            runs=runs,
        )

    def to_html(self) -> str:
        """The report page as text."""
        from leanchain.report._render import render_html

        return render_html(self.report())

    def write_html(self, path: str | Path) -> Path:
        """Write the report page to `path` (UTF-8); returns the path."""
        from leanchain.report._render import write_html

        return write_html(self.report(), path)

    def write_json(self, path: str | Path) -> Path:
        """Write the report's JSON form to `path` (``leanchain report`` turns it into the
        page); returns the path."""
        target = Path(path)
        target.write_bytes(self.report().to_json().encode("utf-8", "replace"))
        return target

    def clear(self) -> None:
        """Forget the runs collected so far (runs in progress go on being collected)."""
        with self._lock:
            self._runs = [run for run in self._runs if any(s.end is None for s in run.steps)]

    # -- collecting -------------------------------------------------------------------------

    def _above(self, parent_run_id: UUID | None) -> tuple[RunInProgress, int] | None:
        if parent_run_id is None:
            return None
        key = parent_run_id.int
        return self._steps.get(key) or self._through.get(key)

    def _begin(
        self, run_id: UUID, parent_run_id: UUID | None, kind: StepKind, name: str
    ) -> StepInProgress:
        """A new step under the nearest step above (a new run when there is none)."""
        above = self._above(parent_run_id)
        if above is None:
            run = RunInProgress()
            self._runs.append(run)
            step = StepInProgress(kind, name, None, 0.0)
        else:
            run, parent = above
            step = StepInProgress(kind, name, parent, run.now())
        run.steps.append(step)
        self._steps[run_id.int] = (run, len(run.steps) - 1)
        return step

    def _finish(self, run_id: UUID) -> StepInProgress | None:
        """The run's step, now ended (``None`` for a run that is no step)."""
        key = run_id.int
        if self._through.pop(key, None) is not None:
            return None
        found = self._steps.pop(key, None)
        if found is None:
            return None
        run, index = found
        step = run.steps[index]
        step.end = run.now()
        return step

    def _chain_kind(
        self, parent_run_id: UUID | None, run_type: str | None
    ) -> tuple[StepKind | None, tuple[RunInProgress, int] | None]:
        """The kind of step a chain run makes (``None``: none), and the step above it."""
        plain_kind: StepKind = (
            "agent"
            if run_type == "agent"
            else "prompt"
            if run_type == "prompt"
            else "parser"
            if run_type == "parser"
            else "chain"
        )
        above = self._above(parent_run_id)
        if above is None or plain_kind == "agent":
            return plain_kind, above
        run, index = above
        direct = self._steps.get(parent_run_id.int) if parent_run_id is not None else None
        if direct is not None:
            parent = run.steps[index]
            if parent.kind == "agent":
                return "plan", above
            if index == 0 and parent.kind == "chain":
                return plain_kind, above
        return None, above

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        run_type: str | None = None,
        **kwargs: Any,
    ) -> None:
        """A step for an agent, a planning call, a root chain or a root chain's step."""
        label = str(name or (serialized or {}).get("name") or "chain")
        with self._lock:
            kind, above = self._chain_kind(parent_run_id, run_type)
            if kind is None:
                if above is not None:
                    self._through[run_id.int] = above
                return
            step = self._begin(run_id, parent_run_id, kind, label)
        # A streamed input arrives as "" here and whole at the end.
        if kind != "plan" and not (isinstance(inputs, str) and not inputs):
            step.input = plain(inputs)

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """The step's output (and its input, when it was streamed in)."""
        with self._lock:
            step = self._finish(run_id)
        if step is None:
            return
        step.output = plain(outputs)
        inputs = kwargs.get("inputs")
        if step.kind != "plan" and step.input is None and inputs is not None:
            step.input = plain(inputs)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """The step failed."""
        with self._lock:
            step = self._finish(run_id)
        if step is not None:
            step.error = error_record(error)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        """A model step with the prompt messages and the request's settings."""
        label = str(name or (serialized or {}).get("name") or "chat model")
        params = kwargs.get("invocation_params") or {}
        prompt = [
            message_data(m) if isinstance(m, BaseMessage) else plain(m)
            for m in (messages[0] if messages else ())
        ]
        with self._lock:
            step = self._begin(run_id, parent_run_id, "model", label)
        step.input = prompt
        step.model = model_name(params, label)
        step.settings = request_settings(params)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """The model's reply and its tokens."""
        with self._lock:
            step = self._finish(run_id)
        if step is None:
            return
        message = reply_message(response)
        step.output = reply_data(message) if isinstance(message, BaseMessage) else plain(message)
        step.usage = token_usage(message)

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """The model call failed."""
        with self._lock:
            step = self._finish(run_id)
        if step is not None:
            step.error = error_record(error)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        inputs: dict[str, Any] | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        """A tool step with its arguments."""
        label = str(name or (serialized or {}).get("name") or "tool")
        arguments = plain(input_str if inputs is None else inputs)
        call_id = kwargs.get("tool_call_id")
        with self._lock:
            step = self._begin(run_id, parent_run_id, "tool", label)
        step.input = arguments
        if isinstance(call_id, str):
            step.tool_call_id = call_id

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """The tool's observation (a tool message with an error status marks an error)."""
        with self._lock:
            step = self._finish(run_id)
        if step is None:
            return
        if isinstance(output, BaseMessage):
            step.output = plain(output.content)
            if getattr(output, "status", None) == "error":
                step.error = ErrorRecord(type="tool error result", message=plain(output.text))
        else:
            step.output = plain(output)

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """The tool failed."""
        with self._lock:
            step = self._finish(run_id)
        if step is not None:
            step.error = error_record(error)

    def _event(self, run_id: UUID, kind: Literal["custom", "retry"], name: str, data: Any) -> None:
        with self._lock:
            found = self._steps.get(run_id.int) or self._through.get(run_id.int)
            if found is None:
                return
            run, index = found
            run.events.append(
                EventRecord(kind=kind, name=name, time=round(run.now(), 6), step=index, data=data)
            )

    def on_retry(
        self,
        retry_state: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """A retry: a marked point with the attempt that failed and why."""
        data: dict[str, Any] = {"attempt": plain(kwargs.get("attempt"))}
        if isinstance(retry_state, BaseException):
            data["error"] = error_record(retry_state).model_dump()
        self._event(run_id, "retry", "retry", data)

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """A custom event (a guard's, a middleware's, a user's): a marked point."""
        self._event(run_id, "custom", str(name), plain(data))
