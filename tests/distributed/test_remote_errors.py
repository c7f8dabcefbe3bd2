"""How an item's exception is described on a worker and rebuilt in the caller (no Ray)."""

from __future__ import annotations

import dataclasses
import os
import threading
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from leanchain.distributed import DistributedItemError
from leanchain.distributed._errors import RemoteFailure, capture, rebuild
from leanchain.errors import (
    LeanchainError,
    MissingPromptVariablesError,
    OutputParserException,
    RateLimitError,
)


def _raised(exc: Exception) -> Exception:
    """`exc` after being raised and caught, so it has a traceback."""
    try:
        raise exc
    except Exception as caught:
        return caught


def _round_trip(exc: Exception, index: int = 0) -> Exception:
    return rebuild(capture(_raised(exc)), index)


class WithHandle(Exception):
    """Holds something that is not plain data."""

    def __init__(self, message: str, lock: Any) -> None:
        super().__init__(message, lock)
        self.lock = lock

    def __str__(self) -> str:
        return str(self.args[0])


class CustomText(Exception):
    """Its message depends on state that does not travel."""

    def __init__(self) -> None:
        super().__init__()
        self.handle = threading.Lock()

    def __str__(self) -> str:
        return f"handle {self.handle!r}"


def test_capture_describes_the_exception_in_plain_data() -> None:
    failure = capture(_raised(KeyError("missing")))

    assert (failure.module, failure.qualname) == ("builtins", "KeyError")
    assert failure.message == "'missing'"
    assert failure.args == ("missing",)
    assert failure.state == {}
    assert failure.pid == os.getpid()
    assert failure.type_name == "KeyError"
    assert failure.traceback.startswith("Traceback (most recent call last):\n")
    assert failure.traceback.endswith("KeyError: 'missing'\n")


def test_builtin_exceptions_come_back_as_themselves() -> None:
    rebuilt = _round_trip(KeyError("missing"), 4)

    assert type(rebuilt) is KeyError
    assert rebuilt.args == ("missing",)
    assert str(rebuilt) == "'missing'"
    assert rebuilt.__notes__[0].startswith(
        f"Raised by item 4 on a Ray worker (pid {os.getpid()}). Remote traceback:\n"
        "Traceback (most recent call last):\n"
    )
    assert rebuilt.__notes__[0].endswith("KeyError: 'missing'")


def test_attributes_that_are_plain_data_come_back() -> None:
    original = OutputParserException(
        "Could not parse", observation="Try JSON", llm_output="oops", send_to_llm=True
    )

    rebuilt = _round_trip(original)

    assert isinstance(rebuilt, OutputParserException)
    assert (str(rebuilt), rebuilt.observation, rebuilt.llm_output, rebuilt.send_to_llm) == (
        "Could not parse",
        "Try JSON",
        "oops",
        True,
    )


def test_an_exception_whose_init_needs_keywords_is_rebuilt_without_calling_it() -> None:
    original = RateLimitError(
        "Rate limited", provider="openai", status_code=429, retryable=True, retry_after=2.5
    )

    rebuilt = _round_trip(original)

    assert type(rebuilt) is RateLimitError
    assert str(rebuilt) == "Rate limited"
    assert (rebuilt.provider, rebuilt.status_code, rebuilt.retryable, rebuilt.retry_after) == (
        "openai",
        429,
        True,
        2.5,
    )


def test_a_message_only_keyerror_subclass_keeps_its_text() -> None:
    rebuilt = _round_trip(MissingPromptVariablesError("Prompt missing required variables: {'x'}"))

    assert type(rebuilt) is MissingPromptVariablesError
    assert str(rebuilt) == "Prompt missing required variables: {'x'}"


def test_arguments_that_are_not_plain_data_are_replaced_by_the_message() -> None:
    rebuilt = _round_trip(WithHandle("locked out", threading.Lock()))

    assert type(rebuilt) is WithHandle
    assert rebuilt.args == ("locked out",)
    assert not hasattr(rebuilt, "lock")


def test_a_class_whose_message_cannot_be_reproduced_becomes_a_distributed_item_error() -> None:
    original = _raised(CustomText())
    failure = capture(original)

    rebuilt = rebuild(failure, 2)

    assert type(rebuilt) is DistributedItemError
    assert isinstance(rebuilt, LeanchainError)
    assert rebuilt.error_type == "test_remote_errors.CustomText"
    assert rebuilt.error_message == str(original)
    assert str(rebuilt) == f"test_remote_errors.CustomText: {original}"
    assert rebuilt.remote_traceback == failure.traceback


def test_a_module_not_imported_here_is_never_imported_for_a_failure() -> None:
    failure = dataclasses.replace(
        capture(_raised(ValueError("x"))), module="leanchain_not_a_module", qualname="Boom"
    )

    rebuilt = rebuild(failure, 0)

    assert type(rebuilt) is DistributedItemError
    assert str(rebuilt) == "leanchain_not_a_module.Boom: x"


def test_a_name_that_is_not_an_exception_class_is_not_instantiated() -> None:
    failure = dataclasses.replace(capture(_raised(ValueError("x"))), module="os", qualname="system")

    rebuilt = rebuild(failure, 0)

    assert type(rebuilt) is DistributedItemError
    assert str(rebuilt) == "os.system: x"


def test_an_empty_message_names_only_the_type() -> None:
    failure = RemoteFailure("somewhere", "Gone", "", (), {}, "", 1)

    assert str(rebuild(failure, 0)) == "somewhere.Gone"


plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.lists(plain, max_size=3))
def test_any_plain_arguments_rebuild_the_same_exception(args: list[Any]) -> None:
    original = ValueError(*args)

    rebuilt = _round_trip(original)

    assert type(rebuilt) is ValueError
    assert rebuilt.args == original.args
    assert str(rebuilt) == str(original)
