"""`leanchain.language_models.__all__` matches the package's public names."""

from __future__ import annotations

import leanchain.language_models as language_models
from leanchain.runnables import Runnable


def test_all_is_exactly_the_public_names() -> None:
    public = {name for name in vars(language_models) if not name.startswith("_")} - {"annotations"}
    assert set(language_models.__all__) == public
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
