"""``leanchain report FILE``: the page of a saved run, and the demo's ``--report`` writer.

FILE is a report's JSON form (``"format": "leanchain.report"``) or a cassette (an object with
``"version"`` and ``"entries"`` and no ``"format"``); a cassette becomes a report of its model
calls, in order, read through ``leanchain.testing.cassettes``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from pydantic import TypeAdapter, ValidationError

from leanchain.cli._errors import CliError
from leanchain.report import ModelPrice, Report, ReportFormatError, load_report, write_html

__all__ = ["read_prices", "report_command", "save_report"]

_PRICES = TypeAdapter(dict[str, ModelPrice])


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read the {what} {str(path)!r}: {exc.strerror or exc}") from None


def read_prices(path: Path) -> dict[str, ModelPrice]:
    """A price table from a JSON file: ``{"MODEL": {"input": 0.15, "output": 0.6}, ...}``,
    prices per million tokens.

    Raises:
        CliError: the file cannot be read or is not such a table.
    """
    text = _read(path, "price table")
    try:
        return _PRICES.validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the table"
        raise CliError(
            f"{str(path)!r} is not a price table ({where}: {first['msg']}); expected "
            '{"MODEL": {"input": PRICE, "output": PRICE}, ...} per million tokens'
        ) from None


def save_report(report: Report, path: Path) -> None:
    """Write `report` to `path`: its JSON form for a ``.json`` path, else the HTML page.

    Raises:
        CliError: the file cannot be written.
    """
    try:
        if path.suffix.lower() == ".json":
            path.write_bytes(report.to_json().encode("utf-8", "replace"))
        else:
            write_html(report, path)
    except OSError as exc:
        raise CliError(f"cannot write the report to {str(path)!r}: {exc.strerror or exc}") from None


def report_command(
    source: Path,
    output: Path | None,
    *,
    prices: Path | None,
    title: str | None,
    out: TextIO,
) -> Path:
    """Turn the saved report at `source` into its page; returns where it was written.

    Raises:
        CliError: the report or price table cannot be read, or the page cannot be written.
    """
    target = source.with_suffix(".html") if output is None else output
    if target.resolve() == source.resolve():
        raise CliError(f"the page would overwrite its source {str(source)!r}: pass -o FILE")
    text = _read(source, "report")
    if _is_cassette(text):
        report = _cassette_report(source)
        said = f"a cassette of {_count(len(report.runs[0].steps) - 1, 'model call')}"
    else:
        try:
            report = load_report(text)
        except ReportFormatError as exc:
            raise CliError(
                f"{str(source)!r} is not a report this leanchain can read: {exc}"
            ) from None
        runs, steps = len(report.runs), sum(len(run.steps) for run in report.runs)
        said = f"{_count(runs, 'run')}, {_count(steps, 'step')}"
    changes: dict[str, object] = {}
    if prices is not None:
        changes["prices"] = {**report.prices, **read_prices(prices)}
    if title is not None:
        changes["title"] = title
    if changes:
        report = report.model_copy(update=changes)
    save_report(report, target)
    out.write(f"wrote {target} ({said})\n")
    return target


def _is_cassette(text: bytes) -> bool:
    """Whether `text` is a cassette: a JSON object with entries and a version, no format."""
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and "format" not in data and {"version", "entries"} <= set(data)


def _cassette_report(source: Path) -> Report:
    from leanchain.report import report_from_cassette
    from leanchain.testing import CassetteFormatError
    from leanchain.testing.cassettes import load_entries

    # The reader's messages name the file; a message type's own error may run over lines.
    try:
        entries = load_entries(source)
    except (CassetteFormatError, OSError) as exc:
        raise CliError(_one_line(str(exc))) from None
    try:
        return report_from_cassette(entries, name=f"cassette {source.name}")
    except CassetteFormatError as exc:
        raise CliError(_one_line(f"cassette {source}: {exc}")) from None


def _one_line(text: str) -> str:
    return " ".join(text.split())
