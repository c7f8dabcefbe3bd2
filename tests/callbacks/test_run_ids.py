"""Run ids: version 4 UUIDs from a per-process random prefix and a counter, redrawn on fork."""

from __future__ import annotations

from uuid import UUID, uuid4

from leanchain.callbacks import _run_ids
from leanchain.callbacks._runs import make_run
from leanchain.callbacks.base import BaseCallbackHandler
from leanchain.callbacks.manager import new_run_id


def test_ids_are_version_4_and_count_up_under_one_prefix() -> None:
    first, second = new_run_id(), new_run_id()
    assert (first.version, first.variant) == (4, "specified in RFC 4122")
    assert (second.version, second.variant) == (4, "specified in RFC 4122")
    assert second.int - first.int == 1
    assert str(first)[:24] == str(second)[:24]
    assert UUID(str(first)) == first


def test_a_run_made_without_an_id_gets_the_next_one() -> None:
    before = new_run_id()
    run = make_run((BaseCallbackHandler(),), {}, None, (), {}, "chain", None, "x", None)
    assert run.run_id.int - before.int == 1
    assert run.run_id.version == 4


def test_run_id_str_is_str_for_our_ids_and_for_others() -> None:
    ours, theirs = new_run_id(), uuid4()
    assert _run_ids.run_id_str(ours) == str(ours)
    assert _run_ids.run_id_str(theirs) == str(theirs)


def test_the_fork_hook_draws_a_new_prefix() -> None:
    before = new_run_id()
    _run_ids._draw_prefix()
    after = new_run_id()
    assert str(after)[:24] != str(before)[:24]
    assert after.int & 0xFFFFFFFFFFFF == 1
    assert (after.version, after.variant) == (4, "specified in RFC 4122")
    assert _run_ids.run_id_str(before) == str(before)
    assert _run_ids.run_id_str(after) == str(after)
