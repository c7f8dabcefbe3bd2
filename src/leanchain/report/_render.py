"""The report page: one self-contained HTML file (inline CSS and script, nothing fetched).

The page's Content-Security-Policy allows no network at all and only its own script (by
hash), so even a content bug could not load or run anything. Every step is a ``<details>``
element whose summary is its timeline row: a bar placed by start and duration on the run's
time axis. Clicking a row shows the step's full content.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Final

from leanchain.report._content import (
    block,
    content_html,
    duration,
    esc,
    messages_html,
    money,
    number,
    preview,
)
from leanchain.report._model import EventRecord, Report, RunRecord, StepRecord

__all__ = ["render_html", "write_html"]

_MIN_WIDTH: Final = 0.3
"""The narrowest bar, in percent of the axis, so that an instant step still shows."""


@cache
def _asset(name: str) -> str:
    return resources.files("leanchain.report").joinpath(name).read_text(encoding="utf-8")


def _policy(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )


@dataclass(slots=True)
class _Totals:
    """What a run (or the whole report) adds up to."""

    steps: int = 0
    models: int = 0
    tools: int = 0
    errors: int = 0
    events: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    priced: int = 0
    with_usage: int = 0

    def add(self, other: _Totals) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))


def _cost(report: Report, step: StepRecord) -> float | None:
    price = report.prices.get(step.model) if step.model is not None else None
    if price is None or step.usage is None:
        return None
    return price.cost(step.usage)


def _totals(report: Report, run: RunRecord) -> _Totals:
    totals = _Totals(steps=len(run.steps), events=len(run.events))
    for step in run.steps:
        totals.errors += step.error is not None
        if step.kind == "tool":
            totals.tools += 1
        if step.kind != "model":
            continue
        totals.models += 1
        if step.usage is not None:
            totals.with_usage += 1
            totals.input_tokens += step.usage.input_tokens
            totals.output_tokens += step.usage.output_tokens
        cost = _cost(report, step)
        if cost is not None:
            totals.priced += 1
            totals.cost += cost
    return totals


def _span(run: RunRecord) -> float:
    """The run's length on its time axis."""
    ends = [step.end if step.end is not None else step.start for step in run.steps]
    ends.extend(event.time for event in run.events)
    root = run.root.end
    return max(root if root is not None else 0.0, *ends, 1e-9)


def _concurrent(run: RunRecord) -> set[int]:
    """Tool steps that ran at the same time as another tool step of the same parent."""
    found: set[int] = set()
    tools = [(i, s) for i, s in enumerate(run.steps) if s.kind == "tool"]
    for a, (i, first) in enumerate(tools):
        for j, second in tools[a + 1 :]:
            if first.parent != second.parent:
                continue
            first_end = first.end if first.end is not None else float("inf")
            second_end = second.end if second.end is not None else float("inf")
            if first.start < second_end and second.start < first_end:
                found.update((i, j))
    return found


def _tokens_text(report: Report, step: StepRecord) -> str:
    if step.usage is None:
        return "no usage reported" if step.kind == "model" else ""
    text = f"in {number(step.usage.input_tokens)} · out {number(step.usage.output_tokens)}"
    cost = _cost(report, step)
    return text if cost is None else f"{text} · {money(cost, report.currency)}"


def _label(run: RunRecord, index: int, plans: dict[int, int]) -> tuple[str, str]:
    """A step's name in its row, and a one-line preview of what it did."""
    step = run.steps[index]
    if step.kind == "plan":
        name = f"plan {plans[index]}"
        return name, "" if step.output is None else "→ " + _decision(step)
    if step.kind == "model":
        name = step.name if step.model in (None, step.name) else f"{step.name} ({step.model})"
        return name, "" if step.output is None else preview(step.output)
    if step.kind == "tool":
        return step.name, preview(step.input) + (
            "" if step.output is None else " → " + preview(step.output)
        )
    return step.name, "" if step.output is None else preview(step.output)


def _decision(step: StepRecord) -> str:
    output = step.output
    decisions = output if isinstance(output, list) else [output]
    said = []
    for decision in decisions:
        if isinstance(decision, dict) and "tool" in decision:
            said.append(str(decision["tool"]))
        elif isinstance(decision, dict) and "return_values" in decision:
            said.append("final answer")
        else:
            said.append(preview(decision))
    return ", ".join(said)


def _bar(start: float, end: float | None, span: float, running: bool) -> str:
    left = 100 * start / span
    stop = span if end is None else end
    width = max(100 * (stop - start) / span, _MIN_WIDTH)
    width = min(width, max(100 - left, _MIN_WIDTH))
    css = "bar running" if running else "bar"
    return f'<span class="{css}" style="left:{left:.3f}%;width:{width:.3f}%"></span>'


def _step_body(report: Report, step: StepRecord) -> str:
    parts = []
    if step.error is not None:
        parts.append(
            block("Error", content_html(f"{step.error.type}: {step.error.message}"), "error")
        )
    if step.kind == "model":
        facts = {"model": step.model, **(step.settings or {})}
        lines = "\n".join(
            f"{key}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
            for key, value in facts.items()
        )
        parts.append(block("Request", content_html(lines)))
        parts.append(block("Prompt", messages_html(step.input), "prompt"))
        if step.output is not None:
            parts.append(block("Reply", messages_html(step.output), "reply"))
        if step.usage is not None:
            parts.append(block("Tokens", content_html(step.usage.model_dump())))
    elif step.kind == "tool":
        if step.tool_call_id is not None:
            parts.append(block("Call id", content_html(step.tool_call_id)))
        parts.append(block("Arguments", content_html(step.input), "arguments"))
        if step.output is not None:
            parts.append(block("Observation", content_html(step.output), "observation"))
    elif step.kind == "plan":
        if step.output is not None:
            parts.append(block("Decision", content_html(step.output), "decision"))
    else:
        parts.append(block("Input", messages_html(step.input), "input"))
        if step.output is not None:
            parts.append(block("Output", messages_html(step.output), "output"))
    return "".join(parts)


def _step_row(report: Report, run: RunRecord, index: int, context: _RowContext) -> str:
    step = run.steps[index]
    name, said = _label(run, index, context.plans)
    classes = ["step", f"kind-{step.kind}"]
    if step.error is not None:
        classes.append("error")
    if step.end is None:
        classes.append("running")
    badge = ""
    if index in context.concurrent:
        classes.append("concurrent")
        badge = '<span class="badge" title="ran at the same time as another tool call">∥</span>'
    taken = _took(step, context.timed)
    error_line = ""
    if step.error is not None:
        error_line = (
            f'<span class="error-line">{esc(step.error.type)}: '
            f"{esc(preview(step.error.message))}</span>"
        )
    return (
        f'<details class="{" ".join(classes)}" id="{context.run_id}-step-{index}" '
        f'style="--depth:{context.depth[index]}">'
        f'<summary class="row"><span class="label"><span class="kind">{step.kind}</span>'
        f'<span class="name">{esc(name)}</span>{badge}'
        f'<span class="said">{esc(said)}</span></span>'
        f'<span class="track">{_bar(step.start, step.end, context.span, step.end is None)}</span>'
        f'<span class="dur">{taken}</span>'
        f'<span class="tokens">{esc(_tokens_text(report, step))}</span>{error_line}</summary>'
        f'<div class="body">{_step_body(report, step)}</div></details>'
    )


def _event_row(number_: int, event: EventRecord, context: _RowContext) -> str:
    data = event.data
    if event.kind == "retry":
        css = "retry"
        said = f"attempt {data.get('attempt')}" if isinstance(data, dict) else ""
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            said += f" failed: {error.get('type')}: {error.get('message')}"
    else:
        css = "guard" if event.name.startswith("leanchain.") else "custom"
        if isinstance(data, dict) and data.get("action") == "stop":
            css += " stop"
        if isinstance(data, dict) and ("action" in data or "message" in data):
            said = f"{data.get('action', '')} — {data.get('message', '')}"
        else:
            said = preview(data)
    depth = 0 if event.step is None else context.depth[event.step] + 1
    left = 100 * event.time / context.span
    return (
        f'<details class="event {css}" id="{context.run_id}-event-{number_}" '
        f'style="--depth:{depth}">'
        f'<summary class="row"><span class="label"><span class="kind">event</span>'
        f'<span class="name">{esc(event.name)}</span>'
        f'<span class="said">{esc(preview(said))}</span></span>'
        f'<span class="track"><span class="mark" style="left:{left:.3f}%"></span></span>'
        f'<span class="dur">{f"at {duration(event.time)}" if context.timed else ""}</span>'
        '<span class="tokens"></span>'
        f"</summary>"
        f'<div class="body">{block("Data", content_html(data))}</div></details>'
    )


@dataclass(slots=True)
class _RowContext:
    run_id: str
    span: float
    depth: list[int]
    plans: dict[int, int]
    concurrent: set[int]
    timed: bool


_UNTIMED: Final = "no times recorded"
"""What an untimed run (a cassette file's) says where a timed one gives durations."""


def _took(step: StepRecord, timed: bool) -> str:
    if step.end is None:
        return "running"
    return duration(step.end - step.start) if timed else "—"


def _context(run: RunRecord, run_id: str) -> _RowContext:
    depth: list[int] = []
    plans: dict[int, int] = {}
    counts: dict[int | None, int] = {}
    for index, step in enumerate(run.steps):
        depth.append(0 if step.parent is None else depth[step.parent] + 1)
        if step.kind == "plan":
            counts[step.parent] = counts.get(step.parent, 0) + 1
            plans[index] = counts[step.parent]
    return _RowContext(run_id, _span(run), depth, plans, _concurrent(run), run.timed)


def _timeline(report: Report, run: RunRecord, run_id: str) -> str:
    context = _context(run, run_id)
    rows: list[tuple[float, int, str]] = []
    for index, step in enumerate(run.steps):
        rows.append((step.start, 0, _step_row(report, run, index, context)))
    for number_, event in enumerate(run.events):
        rows.append((event.time, 1, _event_row(number_, event, context)))
    # Stable: steps keep their start order, and an event comes after the steps begun before it.
    rows.sort(key=lambda row: (row[0], row[1]))
    if run.timed:
        marks = ["0", *(duration(context.span * i / 4) for i in range(1, 5))]
        ticks = "".join(
            f'<span class="tick" style="left:{25 * i}%">{mark}</span>'
            for i, mark in enumerate(marks)
        )
    else:
        ticks = f'<span class="tick order" style="left:0%">calls in order · {_UNTIMED}</span>'
    axis = (
        '<div class="axis"><span class="label">step</span><span class="track">'
        f'{ticks}</span><span class="dur">took</span><span class="tokens">tokens</span></div>'
    )
    return f'<div class="timeline">{axis}{"".join(row for _, _, row in rows)}</div>'


def _count(n: int, noun: str) -> str:
    return f"{number(n)} {noun}" + ("" if n == 1 else "s")


def _facts(report: Report, totals: _Totals) -> str:
    facts = [_count(totals.steps, "step"), _count(totals.models, "model call")]
    if totals.tools:  # a cassette sees the model calls only: "0 tool calls" would mislead
        facts.append(_count(totals.tools, "tool call"))
    if totals.events:
        facts.append(_count(totals.events, "event"))
    if totals.with_usage:
        facts.append(
            f"{number(totals.input_tokens)} input + {number(totals.output_tokens)} output tokens"
        )
    elif totals.models:
        facts.append("no token usage reported")
    if totals.priced:
        facts.append(f"cost {money(totals.cost, report.currency)}")
        if totals.priced < totals.models:
            facts.append(_count(totals.models - totals.priced, "model call") + " without a price")
    elif totals.models:
        facts.append("no price table" if not report.prices else "no priced model")
    error = f'<span class="errors">{_count(totals.errors, "error")}</span>' if totals.errors else ""
    return f'<p class="facts">{esc(" · ".join(facts))}{" · " if error else ""}{error}</p>'


def _run_section(report: Report, number_: int, run: RunRecord, totals: _Totals) -> str:
    run_id = f"run-{number_}"
    root = run.root
    status = root.status
    taken = f"took {_took(root, True)}" if run.timed else _UNTIMED
    errors = [
        f'<li><a href="#{run_id}-step-{i}">{esc(s.kind)} {esc(s.name)}: '
        f"{esc(s.error.type)}: {esc(preview(s.error.message))}</a></li>"
        for i, s in enumerate(run.steps)
        if s.error is not None
    ]
    error_list = f'<ul class="error-list">{"".join(errors)}</ul>' if errors else ""
    return (
        f'<section class="run status-{status}" id="{run_id}">'
        f'<h2><span class="number">{number_}</span> {esc(run.name)} '
        f'<span class="kind">{esc(root.kind)}</span> <span class="status">{status}</span></h2>'
        f'<p class="when">started {esc(run.started_at)} · {taken}</p>'
        f"{_facts(report, totals)}{error_list}{_timeline(report, run, run_id)}</section>"
    )


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page."""
    script = _asset("report.js")
    total = _Totals()
    sections = []
    contents = []
    for number_, run in enumerate(report.runs, 1):
        totals = _totals(report, run)
        total.add(totals)
        sections.append(_run_section(report, number_, run, totals))
        mark = " error" if run.root.status == "error" or totals.errors else ""
        contents.append(
            f'<li class="{mark.strip()}"><a href="#run-{number_}">{esc(run.name)}</a> '
            f"<span>{run.root.status}</span></li>"
        )
    runs = f"{len(report.runs)} run" + ("" if len(report.runs) == 1 else "s")
    toc = f'<ol class="contents">{"".join(contents)}</ol>' if len(report.runs) > 1 else ""
    empty = '<p class="empty">No runs were recorded.</p>' if not report.runs else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(_policy(script))}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="leanchain {esc(report.leanchain_version)}">'
        f"<title>{esc(report.title)}</title><style>{_asset('report.css')}</style></head>"
        f'<body><header><h1>{esc(report.title)}</h1><p class="when">{runs} · made '
        f"{esc(report.created_at)} by leanchain {esc(report.leanchain_version)}</p>"
        f"{_facts(report, total)}"
        '<p class="controls"><button type="button" id="expand-all">Expand all</button> '
        '<button type="button" id="collapse-all">Collapse all</button></p>'
        f"{toc}</header><main>{empty}{''.join(sections)}</main>"
        f"<script>{script}</script></body></html>\n"
    )


def write_html(report: Report, path: str | Path) -> Path:
    """Write `report`'s page to `path` (UTF-8); returns the path."""
    target = Path(path)
    target.write_bytes(render_html(report).encode("utf-8", "replace"))
    return target
