"""Every ```python block in docs/ and the README runs, page by page, offline.

The blocks of one page share a namespace: they are written into one script, each line at the
line number it has in the Markdown file (everything else blank), and run with `runpy`. A
failure's traceback therefore points at ``docs/<page>.md`` and the right line. A block whose
info string is ``python no-run`` is shown but not run (a real provider call); keep them rare.
"""

from __future__ import annotations

import os
import re
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)$")
MAX_NO_RUN = 6


@dataclass(frozen=True)
class Block:
    """One fenced code block: its info string, first line number (1-based) and lines."""

    info: str
    start: int
    lines: list[str]


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order."""
    found: list[Block] = []
    open_fence: tuple[str, str, int] | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if open_fence is None:
            if match is not None:
                open_fence = (match["indent"], match["info"].strip(), number + 1)
                body = []
            continue
        indent, info, start = open_fence
        if match is not None and match["indent"] == indent and not match["info"].strip():
            found.append(Block(info, start, body))
            open_fence = None
        else:
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
    assert open_fence is None, f"unclosed code fence opened at line {open_fence[2] - 1}"
    return found


def script(text: str) -> tuple[str, int]:
    """The page's runnable blocks as one script with Markdown line numbers; and their count."""
    lines = [""] * (len(text.splitlines()) + 1)
    count = 0
    for block in blocks(text):
        if block.info != "python":
            continue
        count += 1
        for offset, line in enumerate(block.lines):
            lines[block.start - 1 + offset] = line
    return "\n".join(lines) + "\n", count


PAGES = [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]
RUNNABLE = [page for page in PAGES if script(page.read_text())[1]]


def test_the_docs_have_examples() -> None:
    assert len(RUNNABLE) >= 10


def test_only_python_and_known_info_strings() -> None:
    allowed = {"python", "python no-run", "bash", "console", "text", "mermaid", "toml", "yaml"}
    used = {
        (page.name, block.info)
        for page in PAGES
        for block in blocks(page.read_text())
        if block.info not in allowed
    }
    assert used == set()


def test_no_run_blocks_are_rare() -> None:
    no_run = [
        (page.name, block.start)
        for page in PAGES
        for block in blocks(page.read_text())
        if block.info == "python no-run"
    ]
    assert len(no_run) <= MAX_NO_RUN, no_run


def test_block_extraction() -> None:
    text = "intro\n```python\nx = 1\n```\n\n- item\n\n    ```python no-run\n    y = 2\n    ```\n"
    assert blocks(text) == [Block("python", 3, ["x = 1"]), Block("python no-run", 9, ["y = 2"])]
    assert script(text) == ("\n\nx = 1" + "\n" * 9, 1)


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(ROOT)) for p in RUNNABLE])
def test_page_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")) or name == "NO_COLOR":
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    source, _ = script(page.read_text())
    # Named after the page, so that a traceback reads "docs/<page>.md", line N.
    path = tmp_path / page.relative_to(ROOT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    runpy.run_path(str(path), run_name="__main__")


def test_every_page_is_in_the_nav() -> None:
    # Every entry of mkdocs.yml's nav ends its line with a page path; nothing else there does.
    nav = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    listed = set(re.findall(r"([\w/.-]+\.md)$", nav, re.MULTILINE))
    pages = {str(page.relative_to(DOCS)) for page in DOCS.rglob("*.md")}
    assert pages == listed
