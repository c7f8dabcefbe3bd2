"""The new everyday packages' ``__all__`` match their public names (sorted)."""

from __future__ import annotations

import importlib

import pytest

PACKAGES = ["leanchain.documents", "leanchain.retrievers"]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    public = {n for n in vars(module) if not n.startswith("_")} - {"annotations"}
    assert set(module.__all__) == public
    assert module.__all__ == sorted(module.__all__)
