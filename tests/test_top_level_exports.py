"""The top-level ``leanchain`` face: every exported name resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import leanchain


def test_all_lists_every_lazy_export_and_the_version() -> None:
    assert sorted(leanchain.__all__) == sorted([*leanchain._EXPORTS, "__version__"])


def test_every_export_resolves_to_the_subpackage_object() -> None:
    import importlib

    for name, module in leanchain._EXPORTS.items():
        assert getattr(leanchain, name) is getattr(importlib.import_module(module), name), name


def test_unknown_names_raise_attribute_error() -> None:
    message = r"^module 'leanchain' has no attribute 'NoSuchThing'$"
    with pytest.raises(AttributeError, match=message):
        leanchain.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_import_leanchain_imports_no_subpackage_and_no_sdk() -> None:
    code = (
        "import sys, leanchain\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('leanchain.', 'openai', "
        "'anthropic', 'pydantic', 'ray')))\n"
        "print(loaded)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Only the module of the lazy faces themselves (no package, no dependency of leanchain).
    assert out.stdout.strip() == "['leanchain._lazy']"


def test_test_files_have_unique_basenames() -> None:
    # pytest's default import mode puts each test folder on sys.path, so two test files with
    # the same name in different folders collide.
    from collections import Counter
    from pathlib import Path

    names = Counter(p.name for p in Path(__file__).parent.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
