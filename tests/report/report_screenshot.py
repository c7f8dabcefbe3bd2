"""Make docs/img/report-demo.png, the screenshot of the demo's report in docs/tracing.md.

Run from the repository root: ``.venv/bin/python tests/report/report_screenshot.py``. It runs
the offline demo once to warm up, then again with ``--report``, opens the page in headless
Chromium, expands the last tool call (the calculator), and captures the top of the page.
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

from report_browser import Browser, require_chromium

from leanchain.cli import main

OUT = Path("docs/img/report-demo.png")


def make(out: Path = OUT) -> None:
    with tempfile.TemporaryDirectory() as folder:
        page_path = Path(folder) / "demo.html"
        with contextlib.redirect_stdout(io.StringIO()):
            # A warm-up run first (reported too): the picture shows the steps, not the first
            # call's imports.
            warm_up = Path(folder) / "warm-up.html"
            assert main(["demo", "--agent", "tool-calling", "--report", str(warm_up)]) == 0
            assert main(["demo", "--report", str(page_path)]) == 0
        browser = Browser(require_chromium())
        try:
            page = browser.page(page_path, width=1100, height=820)
            page.click("#run-1-step-10 > summary")
            page.evaluate("window.scrollTo(0, 0)")
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(out)
            assert page.problems() == []
        finally:
            browser.close()


if __name__ == "__main__":
    make(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
