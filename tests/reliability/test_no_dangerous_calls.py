"""No code execution and no class-reviving deserialization anywhere in ``src/leanchain``.

The incumbents' worst advisories all came from data becoming code: ``exec``/``eval`` chains,
``__import__`` bypasses of AST blocklists, pickle and revivable serialization formats
(pitfalls §2). This test walks the syntax tree of every module and fails on:

- calls to ``eval``, ``exec``, ``compile`` or ``__import__`` (also as ``builtins.eval`` ...);
- imports of ``pickle``, ``marshal``, ``shelve``, ``dill``, ``cloudpickle``, ``jsonpickle``,
  ``copyreg``, ``runpy``, ``jinja2`` or ``code``; ``yaml`` loaders;
- ``importlib.import_module`` (or any other importlib loader) outside the allowlist below,
  each entry with the reason it is safe.

ruff's flake8-bandit rules (S102 exec, S307 eval, S301 pickle, S302 marshal, ...) check the
same in ``make lint``; a test that guards that configuration is below too.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Any, Final

import pytest

from leanchain.messages import HumanMessage, messages_from_dict, messages_to_dict

ROOT: Final = Path(__file__).resolve().parents[2]
SRC: Final = ROOT / "src" / "leanchain"

BANNED_CALLS: Final = frozenset({"eval", "exec", "compile", "__import__"})
BANNED_MODULES: Final = frozenset(
    {
        "pickle",
        "_pickle",
        "cPickle",
        "marshal",
        "shelve",
        "dill",
        "cloudpickle",
        "jsonpickle",
        "copyreg",
        "runpy",
        "jinja2",
        "code",
        "codeop",
    }
)
YAML_LOADERS: Final = frozenset({"load", "load_all", "unsafe_load", "unsafe_load_all", "full_load"})
IMPORTLIB_LOADERS: Final = frozenset(
    {"import_module", "__import__", "spec_from_file_location", "module_from_spec", "exec_module"}
)

IMPORT_MODULE_ALLOWED: Final = {
    "_lazy.py": "the lazy package faces (leanchain, runnables, callbacks, callbacks.events, "
    "messages, agents, agents.middleware): module names come from each face's fixed _EXPORTS "
    "table",
    "cli/_graph.py": "`leanchain graph MODULE:ATTR` imports the module its user names, like "
    "`python -m`: the user's own code, on the user's own command line",
    "providers/_common.py": "the provider SDK ('openai' or 'anthropic'), imported lazily",
    "distributed/_runner.py": "Ray, imported lazily when a RayRunner is made",
    "distributed/_worker.py": "Ray, imported lazily inside a Ray worker process",
}
"""Files (relative to src/leanchain) that may call importlib.import_module, and why."""


def modules() -> list[Path]:
    found = sorted(SRC.rglob("*.py"))
    assert len(found) > 50  # the walk really sees the package
    return found


def findings(path: Path) -> list[str]:
    """Every banned construct in one module, as ``"line: what"``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    importlib_names = {"importlib"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if root in BANNED_MODULES:
                    found.append(f"{node.lineno}: import {alias.name}")
                if alias.name.startswith("importlib"):
                    importlib_names.add(alias.asname or root)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            root = node.module.split(".")[0]
            if root in BANNED_MODULES:
                found.append(f"{node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if root == "importlib" and alias.name in IMPORTLIB_LOADERS:
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
                if root == "builtins" and alias.name in BANNED_CALLS:
                    found.append(f"{node.lineno}: from builtins import {alias.name}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BANNED_CALLS:
                found.append(f"{node.lineno}: {func.id}()")
            elif isinstance(func, ast.Attribute):
                owner = func.value.id if isinstance(func.value, ast.Name) else None
                if owner == "builtins" and func.attr in BANNED_CALLS:
                    found.append(f"{node.lineno}: builtins.{func.attr}()")
                if owner == "yaml" and func.attr in YAML_LOADERS:
                    found.append(f"{node.lineno}: yaml.{func.attr}()")
                if func.attr in IMPORTLIB_LOADERS and (
                    owner in importlib_names or func.attr != "import_module"
                ):
                    found.append(f"{node.lineno}: {ast.unparse(func.value)}.{func.attr}()")
            if (
                isinstance(func, ast.Name)
                and func.id == "getattr"
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in BANNED_CALLS
            ):
                found.append(f"{node.lineno}: getattr(..., {node.args[1].value!r})")
    return found


def test_no_module_executes_code_or_deserializes_objects() -> None:
    problems: dict[str, list[str]] = {}
    allowed_seen: set[str] = set()
    for path in modules():
        relative = path.relative_to(SRC).as_posix()
        found = findings(path)
        if relative in IMPORT_MODULE_ALLOWED:
            rest = [f for f in found if "import_module" not in f]
            if len(rest) < len(found):
                allowed_seen.add(relative)
            found = rest
        if found:
            problems[relative] = found
    assert problems == {}
    # An allowlist entry whose file no longer needs it is removed, not kept "just in case".
    assert allowed_seen == set(IMPORT_MODULE_ALLOWED)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("eval('1')", ["1: eval()"]),
        ("exec(code)", ["1: exec()"]),
        ("compile(s, 'f', 'exec')", ["1: compile()"]),
        ("__import__('os')", ["1: __import__()"]),
        ("import builtins\nbuiltins.exec(c)", ["2: builtins.exec()"]),
        ("getattr(__builtins__, 'eval')(x)", ["1: getattr(..., 'eval')"]),
        ("from builtins import eval", ["1: from builtins import eval"]),
        ("import pickle", ["1: import pickle"]),
        ("import marshal as m", ["1: import marshal"]),
        ("from shelve import open", ["1: from shelve import ..."]),
        ("import dill.source", ["1: import dill.source"]),
        ("import yaml\nyaml.load(s)", ["2: yaml.load()"]),
        ("import importlib\nimportlib.import_module(n)", ["2: importlib.import_module()"]),
        ("import importlib as il\nil.import_module(n)", ["2: il.import_module()"]),
        ("from importlib import import_module", ["1: from importlib import import_module"]),
        (
            "import importlib.util\nimportlib.util.spec_from_file_location(n, p)",
            ["2: importlib.util.spec_from_file_location()"],
        ),
        ("spec.loader.exec_module(m)", ["1: spec.loader.exec_module()"]),
        ("re.compile('x')\nast.literal_eval('1')\njson.loads(s)", []),
    ],
)
def test_the_walk_finds_each_banned_construct(
    tmp_path: Path, source: str, expected: list[str]
) -> None:
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert findings(path) == expected


def test_the_linter_keeps_its_security_rules_on_src() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert "S" in lint["select"]
    for ignored in ("S102", "S301", "S302", "S307"):
        assert ignored not in lint.get("ignore", [])
    for pattern, rules in lint.get("per-file-ignores", {}).items():
        if pattern.startswith("src"):
            assert "S" not in rules, pattern


def test_message_data_never_names_a_class() -> None:
    # LangChain's revivable format (CVE-2025-68664): a "constructor" or "secret" payload is
    # rejected as data, never instantiated, and no environment variable is read.
    payloads: list[dict[str, Any]] = [
        {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {"command": "id"}},
        {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]},
        {"type": "constructor", "data": {"content": "x"}},
        {"type": "leanchain.messages.HumanMessage", "data": {"content": "x"}},
        {"type": "__main__.Evil", "data": {}},
    ]
    for payload in payloads:
        with pytest.raises(ValueError, match=r"Expected a dict|unexpected message type"):
            messages_from_dict([payload])
    # Data that merely looks like a payload stays data.
    message = HumanMessage("hi", additional_kwargs={"lc": 1, "type": "secret", "id": ["K"]})
    assert messages_from_dict(messages_to_dict([message])) == [message]
