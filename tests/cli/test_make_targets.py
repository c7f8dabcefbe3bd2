"""The Makefile from a bare clone: `make demo` installs only the core, `make test` everything.

Each test dry-runs make (``make -n``) on a copy of the Makefile and pyproject.toml in a
temporary directory, with the virtual environment's stamps set up as a checkout would have
them, and reads the exact commands make would run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CREATE = "python3 -m venv .venv"
CORE = [".venv/bin/python -m pip install --quiet -e .", "touch .venv/.installed-core"]
FULL = [
    ".venv/bin/python -m pip install --quiet --upgrade pip",
    '.venv/bin/python -m pip install --quiet -e ".[dev]"',
    "touch .venv/.installed",
]
RUN_DEMO = ".venv/bin/leanchain demo"
CHECKS = [
    ".venv/bin/ruff check src tests benchmarks examples",
    ".venv/bin/ruff format --check src tests benchmarks examples",
    ".venv/bin/mypy src tests/typing",
    ".venv/bin/pytest",
]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)
    os.utime(tmp_path / "pyproject.toml", (1_000_000, 1_000_000))
    return tmp_path


def dry_run(clone: Path, target: str) -> list[str]:
    # Run as a make of its own: under `make test` (as in CI) the outer make's variables
    # would make this one a sub-make that prints "Entering directory" lines.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target, "PYTHON=python3"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    return [line.rstrip() for line in done.stdout.splitlines()]


def installed(clone: Path, *stamps: str) -> None:
    """A venv whose `stamps` were written after pyproject.toml."""
    (clone / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
    (clone / ".venv" / "bin" / "python").touch()
    for stamp in stamps:
        path = clone / ".venv" / stamp
        path.touch()
        os.utime(path, (2_000_000, 2_000_000))


def test_demo_from_a_bare_clone_installs_only_the_core(clone: Path) -> None:
    assert dry_run(clone, "demo") == [CREATE, *CORE, RUN_DEMO]


def test_test_from_a_bare_clone_installs_every_extra_and_dev_tool(clone: Path) -> None:
    assert dry_run(clone, "test") == [CREATE, *FULL, *CHECKS]


def test_test_after_the_demo_adds_the_dev_extra(clone: Path) -> None:
    installed(clone, ".installed-core")
    assert dry_run(clone, "demo") == [RUN_DEMO]
    assert dry_run(clone, "test") == [*FULL, *CHECKS]


def test_the_full_install_serves_the_demo(clone: Path) -> None:
    installed(clone, ".installed")
    assert dry_run(clone, "demo") == [RUN_DEMO]
    assert dry_run(clone, "test") == CHECKS


def test_a_changed_pyproject_reinstalls_what_the_target_needs(clone: Path) -> None:
    installed(clone, ".installed", ".installed-core")
    os.utime(clone / "pyproject.toml", (3_000_000, 3_000_000))
    assert dry_run(clone, "demo") == [*CORE, RUN_DEMO]
    assert dry_run(clone, "test") == [*FULL, *CHECKS]


@pytest.mark.parametrize("target", ["install", "lint", "typecheck", "pytest", "bench", "docs"])
def test_every_other_target_installs_the_dev_extra(clone: Path, target: str) -> None:
    assert dry_run(clone, target)[: 1 + len(FULL)] == [CREATE, *FULL]


def test_the_demo_imports_nothing_but_the_core() -> None:
    # What `pip install -e .` gives is enough: the demo imports leanchain's two dependencies
    # (and theirs), no provider SDK, no OpenTelemetry, no Ray, no dev tool.
    script = (
        "import contextlib, io, sys\n"
        "from leanchain.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['demo'])\n"
        "top = {name.partition('.')[0] for name in sys.modules}\n"
        "print(code, *sorted(t for t in top if t not in sys.stdlib_module_names"
        " and not t.startswith('_')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    code, *imported = done.stdout.split()
    assert code == "0"
    assert {"leanchain", "pydantic", "typing_extensions"} <= set(imported) <= CORE_MODULES


CORE_MODULES = {
    "leanchain",
    "pydantic",
    "typing_extensions",
    # pydantic's own dependencies
    "pydantic_core",
    "annotated_types",
    "typing_inspection",
}
