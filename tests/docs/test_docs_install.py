"""Install instructions that work: leanchain is installed from a checkout (it is not on a package
index), every extra the docs name exists, and the tracing page says what the `otel` extra
leaves out."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
FROM_AN_INDEX = re.compile(r"pip install\s+[\"']?leanchain\b")
CHECKOUT_EXTRA = re.compile(r"pip install (?:-e )?[\"']?(?:\.|<checkout>)\[(?P<extras>[^\]]*)\]")


def _commands(page: Path) -> list[str]:
    return [line.strip() for line in page.read_text().splitlines() if "pip install" in line]


def test_no_page_installs_leanchain_from_an_index() -> None:
    found = [
        (page.relative_to(ROOT).as_posix(), line)
        for page in PAGES
        for line in _commands(page)
        if FROM_AN_INDEX.search(line)
    ]
    assert found == []


def test_the_start_pages_install_from_a_checkout() -> None:
    index = (ROOT / "docs" / "index.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for text in (index, readme):
        assert "not on a package index yet" in text
        assert "\npython -m pip install .  " in text
        assert '\npython -m pip install ".[openai]"  ' in text
    assert "git clone <repository URL> leanchain\ncd leanchain\n" in index


def test_every_extra_the_docs_install_exists() -> None:
    named = {
        extra.strip()
        for page in PAGES
        for line in _commands(page)
        for match in CHECKOUT_EXTRA.finditer(line)
        for extra in match["extras"].split(",")
    }
    assert named == {"openai", "anthropic", "otel", "ray", "all"}
    assert named <= set(EXTRAS)


def test_the_tracing_page_installs_the_sdk_its_example_needs() -> None:
    # The extra is the API only (a library leaves the SDK to the application) ...
    assert [r for r in EXTRAS["otel"] if r.startswith("opentelemetry")] == [
        "opentelemetry-api>=1.25"
    ]
    page = (ROOT / "docs" / "tracing.md").read_text()
    # ... and the page's example makes its own TracerProvider, so it says to add the SDK.
    assert "from opentelemetry.sdk.trace import TracerProvider" in page
    assert '\npython -m pip install ".[otel]" opentelemetry-sdk\n' in page
    assert "The extra installs only `opentelemetry-api`" in page
