"""``python -m benchmarks.compare``: set up ``.venv-bench`` once, then run the comparison there.

The comparison needs LangChain and the agent peers (LangGraph, pydantic-ai, the OpenAI Agents
SDK), which leanchain's own environment does not have: this entry
creates ``.venv-bench`` (``python -m venv``), installs leanchain (editable) and the pinned
``benchmarks/requirements-compare.txt`` into it, and reruns itself there with ``--here``.
It reinstalls when the requirements or ``pyproject.toml`` change. Only the standard library
is imported before ``--here``, so any Python >= 3.11 can start it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv-bench"
REQUIREMENTS = ROOT / "benchmarks" / "requirements-compare.txt"
STAMP = VENV / ".installed"


def _venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for path in (REQUIREMENTS, ROOT / "pyproject.toml"):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def ensure_venv() -> Path:
    """``.venv-bench``'s interpreter, after creating or updating the environment if needed."""
    python = _venv_python()
    fingerprint = _fingerprint()
    if python.exists() and STAMP.exists() and STAMP.read_text().strip() == fingerprint:
        return python
    print(f"setting up {VENV.relative_to(ROOT)} (leanchain + {REQUIREMENTS.name})", flush=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "-e", str(ROOT), "-r", str(REQUIREMENTS)], check=True)
    STAMP.write_text(fingerprint + "\n")
    return python


def main(argv: list[str]) -> int:
    """Run the comparison in ``.venv-bench`` (or here, with ``--here``)."""
    if "--here" in argv:
        from benchmarks.compare.runner import main as run_here

        return run_here([arg for arg in argv if arg != "--here"])
    python = ensure_venv()
    return subprocess.call([str(python), "-m", "benchmarks.compare", "--here", *argv], cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
