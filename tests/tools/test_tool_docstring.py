"""Google-style docstring parsing for tool and argument descriptions."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leanchain.tools._docstring import parse_google_docstring


def _doc(text: str) -> str:
    return inspect.cleandoc(text)


def test_summary_body_and_args() -> None:
    doc = _doc(
        """Summary line.

        Body paragraph.

        Args:
            x: the x
            y (list[int]): the y,
                over two lines
            z : spaced

        Returns:
            nothing
        """
    )
    assert parse_google_docstring(doc, ["x", "y", "z"], error_on_invalid=True) == (
        "Summary line. Body paragraph.",
        {"x": "the x", "y": "the y, over two lines", "z": "spaced"},
    )


def test_sections_before_args_are_not_description() -> None:
    doc = _doc(
        """Summary.

        Example:
            use it

        Args:
            a: the a
        """
    )
    assert parse_google_docstring(doc, ["a"], error_on_invalid=True) == ("Summary.", {"a": "the a"})


def test_returns_right_after_args_without_a_blank_line() -> None:
    doc = _doc(
        """Summary.

        Args:
            a: the a
        Returns:
            b: not an argument
        """
    )
    assert parse_google_docstring(doc, ["a"], error_on_invalid=True) == ("Summary.", {"a": "the a"})


@pytest.mark.parametrize(
    ("doc", "args"),
    [
        (None, []),
        ("", []),
        ("Only a summary.", ["a"]),
        ("Summary.\n\nBody without args.", ["a"]),
        ("Args:\n    a: first block is the summary", ["a"]),
    ],
)
def test_invalid_docstrings(doc: str | None, args: list[str]) -> None:
    with pytest.raises(ValueError, match=r"^Found invalid Google-Style docstring\.$"):
        parse_google_docstring(doc, args, error_on_invalid=True)


def test_lenient_mode_reads_what_it_can() -> None:
    assert parse_google_docstring(None, ["a"], error_on_invalid=False) == ("", {})
    assert parse_google_docstring("Only.", ["a"], error_on_invalid=False) == ("Only.", {})


@given(st.text(), st.lists(st.text(min_size=1), max_size=3))
def test_lenient_parsing_never_fails(doc: str, args: list[str]) -> None:
    description, descriptions = parse_google_docstring(doc, args, error_on_invalid=False)
    assert isinstance(description, str)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in descriptions.items())


@given(st.text())
def test_strict_parsing_fails_exactly_without_an_args_section(doc: str) -> None:
    blocks = doc.split("\n\n")
    invalid = not doc or not any(block.startswith("Args:") for block in blocks[1:])
    if invalid:
        with pytest.raises(ValueError, match=r"^Found invalid Google-Style docstring\.$"):
            parse_google_docstring(doc, ["a"], error_on_invalid=True)
    else:
        parse_google_docstring(doc, ["a"], error_on_invalid=True)
