"""`OpenTelemetryCallbackHandler`: every run becomes a span, nested by the run tree.

Which runs become spans:

* chat model runs: ``chat {model}`` client spans; tool runs: ``execute_tool {name}`` spans;
  agent executor runs: ``invoke_agent {name}`` spans (the GenAI semantic conventions');
* prompt and parser runs, and root chain runs (or chain runs under a run the handler did not
  see): internal spans named after the run;
* chain runs inside another run (each step of a sequence, a parallel's branches, an agent's
  own pipeline...) only with ``nested_chain_spans=True``: by default they make no span, and
  what runs inside them hangs under the nearest span above (a trace stays the GenAI shape,
  agent → chat / tool, and a traced step costs a dict entry instead of a span).

A run's span is the child of its parent run's span; a root run's span is the child of
whatever span is current when it starts (a web request's, say).

Prompt and completion content (``gen_ai.input.messages``, ``gen_ai.output.messages``, tool
arguments and results, error messages) is recorded only with ``capture_content=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.tracing._genai import (
    chat_request_attributes,
    chat_response_attributes,
    error_type,
    messages_json,
    model_of,
    to_json,
)

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, TracerProvider

__all__ = ["OpenTelemetryCallbackHandler"]

_AGENT = "invoke_agent"


class _Open:
    """A run in progress: its span, and what its children and its agent decisions need."""

    __slots__ = ("calls", "context", "span")

    def __init__(self, span: Span) -> None:
        self.span = span
        self.context: Context | None = None
        """The context that makes this span the parent (made for the first child)."""
        self.calls: list[tuple[str, Any, str]] | None = None
        """An agent's decided tool calls whose tool runs have not started yet."""


class OpenTelemetryCallbackHandler(BaseCallbackHandler):
    """A handler that exports runs as OpenTelemetry spans (GenAI semantic conventions).

    Needs ``opentelemetry-api`` (the ``otel`` extra); it is imported when the handler is
    made, never by ``import leanchain``.

    Args:
        tracer_provider: where the spans go; ``None`` means the global provider (so one
            configured later is used too).
        capture_content: also record prompts, completions, tool arguments and results.
        nested_chain_spans: also make a span for every chain run inside another run.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        capture_content: bool = False,
        nested_chain_spans: bool = False,
    ) -> None:
        from opentelemetry import trace

        from leanchain import __version__

        self._trace = trace
        self._tracer = trace.get_tracer("leanchain", __version__, tracer_provider=tracer_provider)
        self._client = trace.SpanKind.CLIENT
        self._internal = trace.SpanKind.INTERNAL
        self._error = trace.StatusCode.ERROR
        self.capture_content = capture_content
        self.nested_chain_spans = nested_chain_spans
        # Keyed by the ids' ints: a `UUID` hashes in Python code, an int in C.
        self._runs: dict[int, _Open] = {}
        self._through: dict[int, _Open] = {}
        """Chain runs without a span of their own → the nearest run above that has one."""

    def _find(self, run_id: UUID | None) -> _Open | None:
        """The run's own record, or the one its children hang under when it has no span."""
        if run_id is None:
            return None
        key = run_id.int
        run = self._runs.get(key)
        return run if run is not None else self._through.get(key)

    # -- spans ------------------------------------------------------------------------------

    def _open(
        self,
        run_id: UUID,
        parent_run_id: UUID | None,
        name: str,
        kind: Any,
        attributes: dict[str, Any],
    ) -> None:
        parent = self._find(parent_run_id)
        context = None
        if parent is not None:
            context = parent.context
            if context is None:
                context = parent.context = self._trace.set_span_in_context(parent.span)
        span = self._tracer.start_span(name, context=context, kind=kind, attributes=attributes)
        self._runs[run_id.int] = _Open(span)

    def _close(self, run_id: UUID, attributes: dict[str, Any] | None = None) -> None:
        run = self._runs.pop(run_id.int, None)
        if run is None:
            return
        span = run.span
        if attributes:
            span.set_attributes(attributes)
        span.end()

    def _fail(self, run_id: UUID, error: BaseException) -> None:
        run = self._runs.pop(run_id.int, None)
        if run is None:
            return
        span = run.span
        kind = error_type(error)
        span.set_attribute("error.type", kind)
        # An error's message often quotes the input or the model's output: content.
        span.set_status(self._error, str(error) if self.capture_content else kind)
        if self.capture_content:
            span.record_exception(error)
        span.end()

    # -- chains, prompts, parsers, agents ---------------------------------------------------

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
        """Open an internal span (an ``invoke_agent`` span for an agent executor's run).

        A chain run inside a run that has a record makes no span (unless
        ``nested_chain_spans``): its children's spans hang under that run's.
        """
        # `name` and `run_type` are parameters: no keyword dict to fill on every run.
        run_type = run_type or "chain"
        if run_type == "chain" and parent_run_id is not None and not self.nested_chain_spans:
            key = parent_run_id.int
            parent = self._runs.get(key) or self._through.get(key)
            if parent is not None:
                self._through[run_id.int] = parent
                return
        name = str(name or (serialized or {}).get("name") or "chain")
        if run_type == "agent":
            attributes = {"gen_ai.operation.name": _AGENT, "gen_ai.agent.name": name}
            self._open(run_id, parent_run_id, f"{_AGENT} {name}", self._internal, attributes)
            return
        self._open(run_id, parent_run_id, name, self._internal, {"leanchain.run.type": run_type})

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the run's span."""
        if self._through.pop(run_id.int, None) is None:
            self._close(run_id)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """End the run's span with an error status."""
        if self._through.pop(run_id.int, None) is None:
            self._fail(run_id, error)

    def on_agent_action(
        self, action: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Keep the decided call's id for the tool run that follows (`_call_id`).

        The executor runs a tool with the call's arguments only (its result must stay the
        tool's plain output, and a tool given a call id answers with a `ToolMessage`), so
        the tool run's start carries no id.
        """
        run = self._find(run_id)
        call_id = getattr(action, "tool_call_id", None)
        if run is not None and isinstance(call_id, str):
            entry = (str(getattr(action, "tool", "")), getattr(action, "tool_input", None), call_id)
            if run.calls is None:
                run.calls = []
            run.calls.append(entry)

    def _call_id(self, parent_run_id: UUID | None, name: str, tool_input: Any) -> str | None:
        """The id of the agent's pending tool call with this tool name and input."""
        parent = self._find(parent_run_id)
        pending = None if parent is None else parent.calls
        if not pending:
            return None
        for i, (tool, arguments, call_id) in enumerate(pending):
            if tool == name and arguments == tool_input:
                del pending[i]
                return call_id
        return None

    # -- chat models ------------------------------------------------------------------------

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a ``chat {model}`` client span with the request's attributes."""
        params = kwargs.get("invocation_params") or {}
        attributes = chat_request_attributes(params)
        if self.capture_content and messages:
            attributes["gen_ai.input.messages"] = messages_json(messages[0])
        model = model_of(params)
        name = "chat" if model is None else f"chat {model}"
        self._open(run_id, parent_run_id, name, self._client, attributes)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the chat span with the usage, finish reasons and response attributes."""
        self._close(
            run_id, chat_response_attributes(response, capture_content=self.capture_content)
        )

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """End the chat span with an error status."""
        self._fail(run_id, error)

    # -- tools ------------------------------------------------------------------------------

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
        **kwargs: Any,
    ) -> None:
        """Open an ``execute_tool {name}`` span."""
        described = serialized or {}
        name = str(kwargs.get("name") or described.get("name") or "tool")
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        description = described.get("description")
        if isinstance(description, str) and description:
            attributes["gen_ai.tool.description"] = description
        call_id = kwargs.get("tool_call_id")
        if call_id is None:
            call_id = self._call_id(parent_run_id, name, input_str if inputs is None else inputs)
        if isinstance(call_id, str):
            attributes["gen_ai.tool.call.id"] = call_id
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = (
                input_str if inputs is None else to_json(inputs)
            )
        self._open(run_id, parent_run_id, f"execute_tool {name}", self._internal, attributes)

    def on_tool_end(
        self, output: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """End the tool span (an error status when the tool answered with a handled error)."""
        if getattr(output, "status", None) == "error":
            run = self._runs.get(run_id.int)
            if run is not None:
                run.span.set_attribute("error.type", "tool_error")
                run.span.set_status(self._error, "tool_error")
        attributes = None
        if self.capture_content:
            content = getattr(output, "content", output)
            result = content if isinstance(content, str) else to_json(content)
            attributes = {"gen_ai.tool.call.result": result}
        self._close(run_id, attributes)

    def on_tool_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """End the tool span with an error status."""
        self._fail(run_id, error)

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
        """A user event: a span event on the dispatching run's span (its data as content)."""
        run = self._find(run_id)
        if run is not None:
            attributes = {"leanchain.event.data": to_json(data)} if self.capture_content else {}
            run.span.add_event(name, attributes)
