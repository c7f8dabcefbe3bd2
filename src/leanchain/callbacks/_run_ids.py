"""Run ids: version 4 UUIDs made of 74 random bits drawn once per process and a 48-bit counter.

Run ids name runs, they guard nothing: unique is what they must be, and a counter is cheaper
than drawing 128 bits (`uuid4` reads the OS entropy pool, which costs as much as a whole
traced step). The shared prefix also makes `run_id_str` cheap. A forked child draws a prefix
of its own, so parent and child never share an id.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from random import getrandbits as _getrandbits
from uuid import UUID, SafeUUID

__all__ = [
    "UNKNOWN_SAFETY",
    "id_ints",
    "new_run_id",
    "run_id_str",
    "set_uuid_int",
    "set_uuid_safety",
]

UNKNOWN_SAFETY = SafeUUID.unknown  # an enum member lookup runs Python code each time
_new_object = object.__new__
# The slots' own setters: `UUID.__setattr__` refuses, and `object.__setattr__` costs 3x more.
set_uuid_int = UUID.__dict__["int"].__set__
set_uuid_safety = UUID.__dict__["is_safe"].__set__
_UUID4_CLEAR = ~((0xF000 << 64) | (0xC000 << 48)) & ((1 << 128) - 1)
_UUID4_SET = (0x4000 << 64) | (0x8000 << 48)
_COUNTER_BITS = 48  # the node field: the version and variant bits stay above it
_COUNTER_MASK = (1 << _COUNTER_BITS) - 1

_prefix_high = 0
_prefix_str = ""
id_ints: Iterator[int] = iter(())
"""The ints of the next run ids, the prefix with the counter in its low bits. Read it through
the module (``_run_ids.id_ints``): a forked child replaces it."""


def _draw_prefix() -> None:
    """Draw this process's random id prefix (again in a forked child: no shared ids)."""
    global _prefix_high, _prefix_str, id_ints
    prefix = ((_getrandbits(128) & _UUID4_CLEAR) | _UUID4_SET) & ~_COUNTER_MASK
    _prefix_high = prefix >> _COUNTER_BITS
    _prefix_str = str(UUID(int=prefix))[:24]
    # The low 48 bits of the prefix are clear: ``prefix + n`` is ``prefix | n``.
    id_ints = itertools.count(prefix + 1)


_draw_prefix()
os.register_at_fork(after_in_child=_draw_prefix)


def new_run_id() -> UUID:
    """A version 4 run id: the process's random prefix, then the next count."""
    # What `UUID.__init__` itself ends with, minus its argument checks (a fifth of the cost).
    run_id: UUID = _new_object(UUID)
    set_uuid_int(run_id, next(id_ints))
    set_uuid_safety(run_id, UNKNOWN_SAFETY)
    return run_id


def run_id_str(run_id: UUID) -> str:
    """``str(run_id)``, at a third of the cost for the ids made by `new_run_id`."""
    value = run_id.int
    if value >> _COUNTER_BITS == _prefix_high:
        return _prefix_str + "%012x" % (value & _COUNTER_MASK)
    return str(run_id)
