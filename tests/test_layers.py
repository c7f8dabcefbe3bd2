"""DESIGN §1: imports point down the layers only — not even lazily — and agents never import
providers; a package's underscore modules (and underscore names) are its own."""

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
    "_model_schema": 0,
    "_lazy": 0,
    "_partial_json": 1,
    "messages": 1,
    "prompts": 1,
    "tools": 1,
    "outputs": 1,
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


def _private_targets(source: str, module: str) -> list[str]:
    """What `source` (the module `module`) imports from other packages' private parts: a
    module with an underscore segment below its package (``leanchain.pkg._x``), or else an
    underscore name imported from a module (``leanchain.pkg.mod._name``)."""
    own = _package(module)
    here = module.split(".")

    def private(target: str) -> bool:
        package = _package(target)
        if package is None or package == own:
            return False
        return any(part.startswith("_") for part in target.split(".")[2:])

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = ".".join(here[: len(here) - node.level])
                base = f"{anchor}.{base}" if base else anchor
            if private(base):
                found.append(base)
            else:
                found.extend(t for a in node.names if private(t := f"{base}.{a.name}"))
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names if private(alias.name))
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


def _module_name(relative: Path) -> str:
    # A package's ``__init__`` keeps its name: a relative import counts from the package.
    return ".".join(["leanchain", *relative.with_suffix("").parts])


def test_no_package_imports_another_packages_private_modules() -> None:
    found: set[str] = set()
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        for target in _private_targets(path.read_text(), _module_name(relative)):
            found.add(f"{relative.as_posix()}: {target}")
    assert sorted(found) == []


def test_the_private_import_check_sees_every_form() -> None:
    source = (
        "import leanchain.callbacks._weak\n"
        "from leanchain.runnables.concurrency import _limiter, get_executor\n"
        "from leanchain.callbacks import _event_stream, base\n"
        "from ..messages._encodable import content_text\n"
        "from ._own import helper\n"
        "from leanchain.tools._base import BaseTool\n"
        "from leanchain.tools import BaseTool as Tool\n"
        "if TYPE_CHECKING:\n"
        "    from leanchain.language_models._stop import StopScanner\n"
    )
    assert _private_targets(source, "leanchain.tools._example") == [
        "leanchain.callbacks._weak",
        "leanchain.runnables.concurrency._limiter",
        "leanchain.callbacks._event_stream",
        "leanchain.messages._encodable",
        "leanchain.language_models._stop",
    ]
