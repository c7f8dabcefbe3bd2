"""The old path of `leanchain.callbacks.weak`, kept while code not yet moved still imports it.

Delete this module with the last ``leanchain.callbacks._weak`` import (tests/test_layers.py
lists the ones left).
"""

from __future__ import annotations

from leanchain.callbacks.weak import WeakMemo

__all__ = ["WeakMemo"]
