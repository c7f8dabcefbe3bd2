"""Counts the docs state ("runs five agent types", "the six factories") match the code."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import leanchain.agents as agents
from leanchain.cli._demo import _FACTORIES as DEMO_AGENTS
from leanchain.cli._demo_tools import demo_tools

ROOT = Path(__file__).resolve().parents[2]
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
NUMBER = "(" + "|".join(WORDS) + r"|\d+)"
FACTORIES = [name for name in agents.__all__ if re.fullmatch(r"create_\w+_agent", name)]
DEPENDENCIES = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
CLAIMS = {
    "agent types the demo runs": (
        re.compile(rf"demo`? runs (?:all )?{NUMBER}\b", re.IGNORECASE),
        len(DEMO_AGENTS),
    ),
    "agent factories": (re.compile(rf"\bthe {NUMBER} factories", re.IGNORECASE), len(FACTORIES)),
    "demo tools": (re.compile(rf"\b{NUMBER} example tools", re.IGNORECASE), len(demo_tools())),
    "runtime dependencies": (
        re.compile(rf"\b{NUMBER} runtime dependencies", re.IGNORECASE),
        len(DEPENDENCIES),
    ),
}


def _text(page: Path) -> str:
    # A claim may wrap onto the next line.
    return re.sub(r"\s+", " ", page.read_text())


def _count(word: str) -> int:
    return WORDS.get(word.lower()) or int(word)


@pytest.mark.parametrize("claim", CLAIMS)
def test_every_stated_count_is_the_real_one(claim: str) -> None:
    pattern, real = CLAIMS[claim]
    stated = [
        (page.relative_to(ROOT).as_posix(), match.group(0), _count(match.group(1)))
        for page in PAGES
        for match in pattern.finditer(_text(page))
    ]
    assert stated, f"no page states the number of {claim}"
    assert [(page, words) for page, words, count in stated if count != real] == []
