"""What importing leanchain costs: the packages load their names on first use (issue 21).

Each check runs in a fresh interpreter, so that what this test process imported already does
not hide an import. The timings are benchmarks (``python -m benchmarks imports``); these tests
pin the module-level work that the timings depend on.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

LAZY_PACKAGES = (
    "leanchain.agents",
    "leanchain.callbacks",
    "leanchain.messages",
    "leanchain.runnables",
)


def _fresh(code: str) -> object:
    """Run `code` in a fresh interpreter; it prints one JSON value, which is returned."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(done.stdout)


def _loaded_after(statement: str, prefixes: tuple[str, ...]) -> list[str]:
    code = (
        f"import json, sys\n{statement}\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    result = _fresh(code)
    assert isinstance(result, list)
    return result


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_importing_a_package_imports_none_of_its_modules(package: str) -> None:
    assert _loaded_after(f"import {package}", (f"{package}.",)) == []


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_resolves_to_its_module_object(package: str) -> None:
    module = importlib.import_module(package)
    exports: dict[str, str] = module._EXPORTS
    assert sorted(exports) == sorted(module.__all__)
    for name, home in exports.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name
    assert set(module.__all__) <= set(dir(module))


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package: str) -> None:
    module = importlib.import_module(package)
    with pytest.raises(AttributeError, match=rf"^module '{package}' has no attribute 'Nope'$"):
        module.Nope  # noqa: B018


def test_the_runnable_core_imports_no_pydantic_and_no_rarely_used_composition() -> None:
    loaded = _loaded_after(
        "from leanchain.runnables import RunnableLambda, RunnableParallel, RunnablePassthrough",
        ("pydantic", "leanchain.runnables.", "leanchain.callbacks.console"),
    )
    assert not [m for m in loaded if m.startswith("pydantic")]
    for module in ("graph", "_graph_draw", "branch", "retry", "fallbacks", "configurable", "each"):
        assert f"leanchain.runnables.{module}" not in loaded
    assert "leanchain.callbacks.console" not in loaded


def test_an_agent_program_builds_no_validator_and_loads_no_metadata_or_email_machinery() -> None:
    code = """
import json, sys
from leanchain.agents import AgentExecutor, create_tool_calling_agent
from pydantic import BaseModel
from pydantic._internal._mock_val_ser import MockCoreSchema

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

built = sorted(
    f"{cls.__module__}.{cls.__qualname__}"
    for cls in set(subclasses(BaseModel))
    if cls.__module__.startswith("leanchain.")
    and not isinstance(cls.__dict__.get("__pydantic_core_schema__"), MockCoreSchema)
)
unwanted = ("importlib.metadata", "email", "urllib.request", "xml.sax", "openai", "anthropic")
print(json.dumps([built, sorted(m for m in unwanted if m in sys.modules)]))
"""
    assert _fresh(code) == [[], []]


def test_a_deferred_message_class_validates_on_first_use() -> None:
    code = """
import json
from leanchain.messages import AIMessage
from pydantic import ValidationError
try:
    AIMessage(content=1)
except ValidationError as error:
    print(json.dumps([AIMessage("hi").content, error.error_count()]))
"""
    assert _fresh(code) == ["hi", 2]
