"""One headless Chromium for the report page tests, and a fixture that opens pages in it.

Without Chromium the tests that need it fail (never skip), saying how to install it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from report_browser import Browser, Page, require_chromium

from leanchain.report import Report, write_html


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    started = Browser(require_chromium())
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def show(browser: Browser, tmp_path: Path) -> Iterator[Callable[[Report], Page]]:
    """Write a report's page to a file and open it in a new tab (closed after the test)."""
    pages: list[Page] = []

    def open_report(report: Report) -> Page:
        path = write_html(report, tmp_path / f"report-{len(pages)}.html")
        page = browser.page(path)
        pages.append(page)
        return page

    yield open_report
    for page in pages:
        page.close()
