"""Run batches of runnables and agent runs on a Ray cluster (extra ``ray``).

`RayRunner` takes a runnable, or a zero-argument factory that builds one on each worker, and
runs a list of inputs as Ray tasks: ``batch`` (outputs in input order), ``batch_as_completed``
(``(index, output)`` as items finish) and their async twins. Ray is imported only when a
runner is created, never by ``import leanchain``.

An item that fails comes back as its original exception class and message when that class is
importable in the caller's process, else as `DistributedItemError`, which names it.
"""

from __future__ import annotations

from leanchain.distributed._errors import DistributedItemError
from leanchain.distributed._runner import RayRunner

__all__ = ["DistributedItemError", "RayRunner"]
