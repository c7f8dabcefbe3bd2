"""The stderr progress bar of distributed batches (no Ray)."""

from __future__ import annotations

import io

import pytest

from leanchain.distributed._progress import ProgressBar


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_redraws_in_place_and_ends_the_line() -> None:
    out = io.StringIO()
    bar = ProgressBar(4, width=8, stream=out, min_interval=0)

    bar.advance()
    bar.advance(failed=True)
    bar.advance()
    bar.advance()
    bar.close()
    bar.close()

    assert out.getvalue() == (
        "\rRayRunner [........] 0/4"
        "\rRayRunner [##......] 1/4"
        "\rRayRunner [####....] 2/4 (1 failed)"
        "\rRayRunner [######..] 3/4 (1 failed)"
        "\rRayRunner [########] 4/4 (1 failed)"
        "\rRayRunner [########] 4/4 (1 failed)\n"
    )


def test_redraws_at_most_once_per_interval_but_always_at_the_end() -> None:
    out = io.StringIO()
    clock = Clock()
    bar = ProgressBar(3, label="eval", width=3, stream=out, min_interval=1.0, clock=clock)

    bar.advance()
    clock.now = 0.5
    bar.advance()
    clock.now = 1.0
    bar.advance()
    bar.close()

    assert out.getvalue() == "\reval [...] 0/3\reval [###] 3/3\reval [###] 3/3\n"


def test_defaults_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    bar = ProgressBar(1, width=2)
    bar.close()

    assert capsys.readouterr().err == "\rRayRunner [..] 0/1\rRayRunner [..] 0/1\n"


def test_an_empty_batch_draws_a_full_bar() -> None:
    assert ProgressBar(0, width=2, stream=io.StringIO()).render() == "RayRunner [##] 0/0"
