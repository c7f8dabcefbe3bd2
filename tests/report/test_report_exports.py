"""`leanchain.report`'s face: `__all__` lists exactly its public names, and each resolves."""

from __future__ import annotations

import subprocess
import sys

import leanchain.report


def test_all_lists_every_public_name() -> None:
    public = {
        name
        for name in vars(leanchain.report)
        if name.isidentifier() and not name.startswith("_") and name != "annotations"
    }
    assert set(leanchain.report.__all__) == public
    for name in leanchain.report.__all__:
        assert getattr(leanchain.report, name) is not None


def test_importing_the_report_imports_no_sdk_and_no_opentelemetry() -> None:
    code = (
        "import sys, leanchain.report\n"
        "print(sorted(m for m in sys.modules if m.startswith(('openai', 'anthropic', "
        "'opentelemetry', 'ray'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
