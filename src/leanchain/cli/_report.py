"""``leanchain report FILE``: the page of a saved run, and the demo's ``--report`` writer."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

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
    try:
        report = load_report(_read(source, "report"))
    except ReportFormatError as exc:
        raise CliError(f"{str(source)!r} is not a report this leanchain can read: {exc}") from None
    changes: dict[str, object] = {}
    if prices is not None:
        changes["prices"] = {**report.prices, **read_prices(prices)}
    if title is not None:
        changes["title"] = title
    if changes:
        report = report.model_copy(update=changes)
    save_report(report, target)
    runs, steps = len(report.runs), sum(len(run.steps) for run in report.runs)
    out.write(f"wrote {target} ({_count(runs, 'run')}, {_count(steps, 'step')})\n")
    return target
