"""`leanchain.language_models.__all__` matches the package's public names."""

from __future__ import annotations

import types

import leanchain.language_models as language_models
from leanchain.runnables import Runnable


def test_all_is_exactly_the_public_names() -> None:
    import leanchain.language_models.adapters  # noqa: F401  (its public module, loaded)

    names = {name: value for name, value in vars(language_models).items() if name[0] != "_"}
    modules = {name for name, value in names.items() if isinstance(value, types.ModuleType)}
    assert modules == {"adapters"}
    assert set(language_models.__all__) == set(names) - modules - {"annotations"}
    assert language_models.__all__ == sorted(language_models.__all__)


def test_design_names_are_exported() -> None:
    assert {
        "BaseChatModel",
        "FakeListChatModel",
        "GenericFakeChatModel",
        "ScriptedChatModel",
        "FunctionChatModel",
    } <= set(language_models.__all__)
    assert issubclass(language_models.BaseChatModel, Runnable)
