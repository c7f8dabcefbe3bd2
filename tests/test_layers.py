"""DESIGN §1: imports point down the layers only — not even lazily — and agents never import
providers."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "leanchain"

LAYER = {
    "runnables": 0,
    "callbacks": 0,
    "errors": 0,
    "globals": 0,
    "_fields": 0,
    "_partial_json": 1,
    "messages": 1,
    "prompts": 1,
    "tools": 1,
    "output_parsers": 1,
    "language_models": 1,
    "chat_history": 1,
    "documents": 1,
    "retrievers": 1,
    "agents": 2,
    "providers": 2,
    "chat_models": 2,
    "testing": 3,
    "tracing": 3,
    "report": 3,
    "cli": 3,
    "distributed": 3,
}


FORBIDDEN = {("agents", "providers"), ("agents", "chat_models")}
"""Same-layer imports that are not allowed: an agent works with any chat model."""


def _package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "leanchain" or len(parts) < 2:
        return None
    return parts[1]


def _imports(path: Path) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_imports_point_down_the_layers() -> None:
    wrong: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        own = relative.parts[0].removesuffix(".py")
        if own not in LAYER:
            continue
        for module in _imports(path):
            target = _package(module)
            if target is None or target not in LAYER:
                continue
            if LAYER[target] > LAYER[own] or (own, target) in FORBIDDEN:
                wrong.append(f"{relative}: imports {module}")
    assert wrong == []


def test_every_subpackage_has_a_layer() -> None:
    names = {
        p.name.removesuffix(".py")
        for p in SRC.iterdir()
        if not p.name.startswith("__") and (p.is_dir() or p.suffix == ".py")
    }
    assert names <= set(LAYER)
