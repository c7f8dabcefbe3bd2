"""A picture of a run: one self-contained HTML page per run or batch of runs.

Collect runs with a handler, then write the page (or its JSON form, which
``leanchain report FILE`` turns into the page later)::

    from leanchain.report import ReportCallbackHandler

    handler = ReportCallbackHandler(prices={"gpt-4o-mini": {"input": 0.15, "output": 0.6}})
    executor.invoke({"input": "..."}, {"callbacks": [handler]})
    handler.write_html("run.html")
    handler.write_json("run.json")

The page shows each run's timeline (the agent, each planning call, each model and tool call,
retries and guard events, with their durations; concurrent tool calls overlap on the time
axis), tokens and cost per model call and in total, and for every step its full prompt,
reply, tool arguments and observation, collapsed until clicked. It needs no server and
fetches nothing: its CSS and script are inline and its Content-Security-Policy forbids any
request. Everything a run said is escaped, so HTML in a reply is shown as text.

A cassette (``leanchain.testing.cassette``) is a run too: ``cassette(path, report="run.html")``
writes the page of the calls it recorded or replayed, and `report_from_cassette` (what
``leanchain report cassette.json`` uses) makes the report of a cassette file's calls.
"""

from __future__ import annotations

from leanchain.report._cassette import report_from_cassette
from leanchain.report._handler import ReportCallbackHandler
from leanchain.report._model import (
    REPORT_FORMAT,
    REPORT_VERSION,
    ErrorRecord,
    EventRecord,
    ModelPrice,
    Report,
    ReportFormatError,
    RunRecord,
    StepKind,
    StepRecord,
    TokenUsage,
    load_report,
)
from leanchain.report._render import render_html, write_html

__all__ = [
    "REPORT_FORMAT",
    "REPORT_VERSION",
    "ErrorRecord",
    "EventRecord",
    "ModelPrice",
    "Report",
    "ReportCallbackHandler",
    "ReportFormatError",
    "RunRecord",
    "StepKind",
    "StepRecord",
    "TokenUsage",
    "load_report",
    "render_html",
    "report_from_cassette",
    "write_html",
]
