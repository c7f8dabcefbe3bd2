"""What an agent run *is*, as plain data: `RunState` and its one versioned JSON form.

A checkpoint, a paused run handed to a person, a run read back after its process died: each
is a `RunState` (inputs, steps, iteration, elapsed time, middleware state, pending calls).
Its JSON form is documented and versioned (``"version": 1``) and holds only JSON types.

Values that are not JSON (messages, agent actions, tuples, dicts with non-string keys) are
written as tagged objects, ``{"__leanchain__": "<kind>", ...}``, and read back by a fixed
table of leanchain's own data types. Nothing else is ever built from the data: no class
names, no imports, no pickle. A user dict that happens to have the tag key is written
escaped (as a ``"dict"`` item list), so data can never pose as a type. Values of any other
type (a datetime, a pydantic model a tool returned) are refused when the state is saved,
with the path to the value.

Layout of the JSON form (every key always present)::

    {"version": 1, "format": "leanchain.agent_run", "run_id": "9f2c...", "seq": 3,
     "status": "running" | "interrupted" | "finished", "iterations": 2, "elapsed": 1.25,
     "middleware": {"HumanApproval": {...}}, "pending": [action, ...] | null,
     "interrupt": {"reason": "approval", "data": ...} | null, "output_extras": {...},
     "finish": finish | null, "inputs": {...}, "steps": [[action, observation], ...]}
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, TypeAlias

from leanchain.agents.schema import (
    AgentAction,
    AgentActionMessageLog,
    AgentFinish,
    AgentStep,
    ToolAgentAction,
)
from leanchain.errors import RunStateError
from leanchain.messages import BaseMessage, messages_from_dict

if TYPE_CHECKING:
    from leanchain.agents._run import AgentRun

__all__ = [
    "STATE_VERSION",
    "TAG",
    "RunState",
    "RunStatus",
    "StateWriter",
    "dump_value",
    "load_value",
]

STATE_VERSION: Final = 1
"""The version of the JSON form this leanchain writes (and the newest it reads)."""

TAG: Final = "__leanchain__"
"""The key that marks a tagged value in the JSON form."""

FORMAT: Final = "leanchain.agent_run"

RunStatus: TypeAlias = Literal["running", "interrupted", "finished"]
_STATUSES: Final = ("running", "interrupted", "finished")
_STATE_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "run_id": (str,),
    "seq": (int,),
    "status": (str,),
    "inputs": (dict,),
    "steps": (list,),
    "iterations": (int,),
    "elapsed": (int, float),
    "middleware": (dict,),
    "pending": (list, type(None)),
    "interrupt": (dict, type(None)),
    "output_extras": (dict,),
    "finish": (dict, type(None)),
}
"""A saved state's fields (besides ``format`` and ``version``) and their JSON types."""

_PLAIN: Final = (
    "plain data (str, int, float, bool, None, lists, tuples, dicts), messages and agent values"
)


class _PathError(Exception):
    """What cannot be saved or read; carries the path to it, built on the way out."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why
        self.path: list[str] = []


class _Unsaveable(_PathError):
    """A value that has no JSON form."""

    def __init__(self, value: Any, why: str) -> None:
        super().__init__(why)
        self.value = value


class _Unreadable(_PathError):
    """Data that is not what `dump_value` writes."""


def _key_path(key: Any) -> str:
    return f"[{key!r}]"


def _each(convert: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
    """`convert` of each item, in order; a failure's path names the item's index."""
    out: list[Any] = []
    try:
        for item in items:
            out.append(convert(item))
    except _PathError as exc:
        exc.path.append(f"[{len(out)}]")
        raise
    return out


def _each_value(convert: Callable[[Any], Any], mapping: Mapping[Any, Any]) -> dict[Any, Any]:
    """`convert` of each value, under its key; a failure's path names the key."""
    out: dict[Any, Any] = {}
    key = None
    try:
        for key, item in mapping.items():
            out[key] = convert(item)
    except _PathError as exc:
        exc.path.append(_key_path(key))
        raise
    return out


# -- writing -------------------------------------------------------------------------------


def dump_value(value: Any, where: str = "value") -> Any:
    """`value` as JSON-ready data (tagged where JSON has no type for it).

    Raises:
        RunStateError: a value (named by its path under `where`) that is not plain data, a
            message or an agent value.
    """
    try:
        return _dump(value)
    except _Unsaveable as exc:
        path = where + "".join(reversed(exc.path))
        raise RunStateError(
            f"Cannot save the run's state: {path} {exc.why}; a saved run holds {_PLAIN}"
        ) from None
    except RecursionError:
        raise RunStateError(
            f"Cannot save the run's state: {where} is nested too deeply, or holds itself"
        ) from None


def _dump(value: Any) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is float:
        if math.isfinite(value):
            return value
        return {TAG: "float", "value": repr(value)}
    if kind is list:
        return _dump_items(value)
    if kind is dict:
        return _dump_dict(value)
    if kind is tuple:
        return {TAG: "tuple", "items": _dump_items(value)}
    if isinstance(value, BaseMessage):
        return _dump_message(value)
    if isinstance(value, AgentAction):
        return dump_action(value)
    if kind is AgentFinish:
        return {TAG: "AgentFinish", "return_values": _dump(value.return_values), "log": value.log}
    if kind is AgentStep:
        return {
            TAG: "AgentStep",
            "action": _dump(value.action),
            "observation": _dump(value.observation),
        }
    # Subclasses of the plain types keep their value, not their class (a StrEnum, a
    # NamedTuple, a dict subclass come back as str, tuple, dict).
    if isinstance(value, str):
        return str.__str__(value)  # the text itself, even for a (str, Enum) member
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return _dump(float(value))
    if isinstance(value, tuple):
        return {TAG: "tuple", "items": _dump_items(value)}
    if isinstance(value, list):
        return _dump_items(value)
    if isinstance(value, Mapping):
        return _dump_dict(dict(value))
    raise _Unsaveable(value, f"is a {kind.__qualname__} ({_short(value)})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _dump_items(items: Sequence[Any]) -> list[Any]:
    return _each(_dump, items)


def _dump_dict(value: dict[Any, Any]) -> dict[str, Any]:
    if TAG not in value and all(type(k) is str for k in value):
        return _each_value(_dump, value)
    # Keys JSON cannot hold: [key, value] pairs, each dumped under its key's path.
    pairs = _each_value(_dump_pair, {key: (key, item) for key, item in value.items()})
    return {TAG: "dict", "items": list(pairs.values())}


def _dump_pair(entry: tuple[Any, Any]) -> list[Any]:
    return [_dump(entry[0]), _dump(entry[1])]


def _dump_message(message: BaseMessage) -> dict[str, Any]:
    data = message.model_dump()
    return {TAG: "message", "type": message.type, "data": _dump(data)}


def dump_action(action: AgentAction) -> dict[str, Any]:
    """An agent action (of leanchain's three action types) as tagged data."""
    kind = type(action)
    if kind not in (AgentAction, AgentActionMessageLog, ToolAgentAction):
        raise _Unsaveable(
            action, f"is a {kind.__qualname__}, a subclass of AgentAction that has no saved form"
        )
    out: dict[str, Any] = {
        TAG: kind.__name__,
        "tool": action.tool,
        "tool_input": _dump(action.tool_input),
        "log": action.log,
    }
    if isinstance(action, AgentActionMessageLog):
        out["message_log"] = _dump_items(list(action.message_log))
    if isinstance(action, ToolAgentAction):
        out["tool_call_id"] = action.tool_call_id
    return out


# -- reading -------------------------------------------------------------------------------


def load_value(data: Any, where: str = "value") -> Any:
    """The value `data` (from `dump_value`) stands for.

    Only JSON types and leanchain's own data types (messages, `AgentAction`,
    `AgentActionMessageLog`, `ToolAgentAction`, `AgentFinish`, `AgentStep`) are built.

    Raises:
        RunStateError: data that is not what `dump_value` writes (an unknown tag, a field
            of the wrong type, a message that does not validate); names the path.
    """
    try:
        return _load(data)
    except _Unreadable as exc:
        path = where + "".join(reversed(exc.path))
        raise RunStateError(f"Cannot read the run's state: {path} {exc.why}") from None


def _load(data: Any) -> Any:
    kind = type(data)
    if data is None or kind is str or kind is bool or kind is int or kind is float:
        return data
    if kind is list:
        return _load_items(data)
    if kind is not dict:
        raise _Unreadable(f"is a {kind.__qualname__}, which is not JSON data")
    tag = data.get(TAG)
    if tag is None:
        for key in data:
            if type(key) is not str:
                raise _Unreadable(f"has a key that is not a string: {key!r}")
        return _each_value(_load, data)
    reader = _READERS.get(tag) if type(tag) is str else None
    if reader is None:
        raise _Unreadable(
            f"is tagged with an unknown type {tag!r}; this leanchain reads {sorted(_READERS)}"
        )
    return reader(data)


def _load_items(items: list[Any]) -> list[Any]:
    return _each(_load, items)


class _Wording(NamedTuple):
    """How `_misfit` says what is wrong: `str.format` templates."""

    unknown: str
    """Keys that are not fields: ``{keys}``."""
    missing: str
    """A field that is not there: ``{key}``."""
    wrong_type: str
    """A field of the wrong type: ``{key}``, ``{value}``, ``{names}`` (the types it may
    have), ``{kind}`` (its type's name), ``{short}`` (its repr, cut)."""


_TAGGED_WORDING: Final = _Wording(
    "has unknown keys {keys}", "has no {key!r}", "has a {key!r} that is not {names}: {value!r}"
)
_STATE_WORDING: Final = _Wording(
    "unknown keys {keys}", "it has no {key!r}", "{key!r} has the wrong type ({kind}): {short}"
)


def _misfit(
    data: Mapping[str, Any],
    fields: Mapping[str, tuple[type, ...]],
    also: frozenset[str],
    wording: _Wording,
) -> str | None:
    """How `data` is not a record of exactly `fields` (and the keys `also`), of those types,
    the first thing found; ``None`` when it is one. A bool is an int only where `fields`
    allows ``bool`` or ``object``."""
    extra = sorted(set(data) - set(fields) - also)
    if extra:
        return wording.unknown.format(keys=extra)
    for key, types in fields.items():
        if key not in data:
            return wording.missing.format(key=key)
        value = data[key]
        takes_bool = bool in types or object in types
        if not isinstance(value, types) or (type(value) is bool and not takes_bool):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            kind, short = type(value).__name__, _short(value)
            return wording.wrong_type.format(
                key=key, value=value, names=names, kind=kind, short=short
            )
    return None


def _fields(data: dict[str, Any], required: Mapping[str, tuple[type, ...]]) -> None:
    """Check that tagged `data` has exactly the tag and `required` keys, of those types."""
    misfit = _misfit(data, required, frozenset({TAG}), _TAGGED_WORDING)
    if misfit is not None:
        raise _Unreadable(f"({data[TAG]}) {misfit}")


def _field(data: dict[str, Any], key: str, loader: Any = None) -> Any:
    try:
        return _load(data[key]) if loader is None else loader(data[key])
    except _Unreadable as exc:
        exc.path.append(f"[{key!r}]")
        raise


def _read_float(data: dict[str, Any]) -> float:
    _fields(data, {"value": (str,)})
    if data["value"] not in ("nan", "inf", "-inf"):
        raise _Unreadable(
            f"(float) has a value that is not 'nan', 'inf' or '-inf': {data['value']!r}"
        )
    return float(data["value"])


def _read_tuple(data: dict[str, Any]) -> tuple[Any, ...]:
    _fields(data, {"items": (list,)})
    return tuple(_field(data, "items"))


def _read_dict(data: dict[str, Any]) -> dict[Any, Any]:
    _fields(data, {"items": (list,)})
    out: dict[Any, Any] = {}
    for i, pair in enumerate(data["items"]):
        try:
            if type(pair) is not list or len(pair) != 2:
                raise _Unreadable(f"is not a [key, value] pair: {pair!r}")
            key, value = _load(pair[0]), _load(pair[1])
            try:
                hash(key)
            except TypeError:
                raise _Unreadable("has a key that cannot be a dict key") from None
        except _Unreadable as exc:
            exc.path += [f"[{i}]", "['items']"]
            raise
        out[key] = value
    return out


def _read_message(data: dict[str, Any]) -> BaseMessage:
    _fields(data, {"type": (str,), "data": (dict,)})
    fields = _field(data, "data")
    try:
        return messages_from_dict([{"type": data["type"], "data": fields}])[0]
    except ValueError as exc:  # an unknown type tag, or pydantic's ValidationError
        raise _Unreadable(f"is not a valid message: {exc}") from None


def _read_messages(items: Any) -> tuple[BaseMessage, ...]:
    if type(items) is not list:
        raise _Unreadable(f"is not a list of messages: {items!r}")
    messages = _load_items(items)
    for i, message in enumerate(messages):
        if not isinstance(message, BaseMessage):
            raise _Unreadable(f"[{i}] is not a message: {message!r}")
    return tuple(messages)


_ACTION_FIELDS: Final[dict[str, tuple[type, ...]]] = {
    "tool": (str,),
    "tool_input": (str, dict),
    "log": (str,),
}


def _read_action(data: dict[str, Any]) -> AgentAction:
    tag = data[TAG]
    required = dict(_ACTION_FIELDS)
    if tag != "AgentAction":
        required["message_log"] = (list,)
    if tag == "ToolAgentAction":
        required["tool_call_id"] = (str, type(None))
    _fields(data, required)
    tool_input = _field(data, "tool_input")
    if not isinstance(tool_input, (str, dict)):
        raise _Unreadable(f"['tool_input'] is not a str or a dict: {tool_input!r}")
    if tag == "AgentAction":
        return AgentAction(data["tool"], tool_input, data["log"])
    message_log = _field(data, "message_log", _read_messages)
    if tag == "AgentActionMessageLog":
        return AgentActionMessageLog(data["tool"], tool_input, data["log"], message_log)
    return ToolAgentAction(
        data["tool"], tool_input, data["log"], message_log, tool_call_id=data["tool_call_id"]
    )


def _read_finish(data: dict[str, Any]) -> AgentFinish:
    _fields(data, {"return_values": (dict,), "log": (str,)})
    values = _field(data, "return_values")
    if not isinstance(values, dict):
        raise _Unreadable(f"['return_values'] is not a dict: {values!r}")
    return AgentFinish(values, data["log"])


def _read_step(data: dict[str, Any]) -> AgentStep:
    _fields(data, {"action": (dict,), "observation": (object,)})
    action = _field(data, "action")
    if not isinstance(action, AgentAction):
        raise _Unreadable(f"['action'] is not an agent action: {action!r}")
    return AgentStep(action, _field(data, "observation"))


_READERS: Final[dict[str, Any]] = {
    "float": _read_float,
    "tuple": _read_tuple,
    "dict": _read_dict,
    "message": _read_message,
    "AgentAction": _read_action,
    "AgentActionMessageLog": _read_action,
    "ToolAgentAction": _read_action,
    "AgentFinish": _read_finish,
    "AgentStep": _read_step,
}


# -- the run state -------------------------------------------------------------------------


Steps: TypeAlias = list[tuple[AgentAction, Any]]


def _same(value: Any) -> Any:
    return value


def _dump_step(i: int, action: Any, observation: Any) -> list[Any]:
    return [
        dump_value(action, f"steps[{i}].action"),
        dump_value(observation, f"steps[{i}].observation"),
    ]


_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)
"""Encodes what `dump_value` made (trees of JSON types: no cycles to look for)."""


def _text(data: Any) -> str:
    return _ENCODER.encode(data)


class StateWriter:
    """Writes the successive states of one run as JSON text, each step encoded only once.

    A run is saved after every step, and most of what it holds (its inputs, the steps so far)
    has not changed since the last save: the writer keeps the text of each and writes only
    what is new. A kept step is reused while the run holds the very same action and
    observation objects in that place (a middleware that replaces a step gets it written
    again); observations are values and are not changed in place.
    """

    __slots__ = ("_inputs", "_steps")

    def __init__(self) -> None:
        self._steps: list[tuple[Any, Any, str]] = []
        self._inputs: tuple[tuple[str, ...], tuple[Any, ...], str] | None = None

    def write(self, state: RunState) -> str:
        """`state`'s JSON form as text (the same data as `RunState.to_json`).

        Raises:
            RunStateError: a value in the state is not plain data (names its path).
        """
        return "".join(
            (
                _text(state._head())[:-1],
                ', "inputs": ',
                self._inputs_text(state.inputs),
                ', "steps": [',
                ", ".join(self._step_texts(state.steps)),
                "]}",
            )
        )

    def _inputs_text(self, inputs: dict[str, Any]) -> str:
        kept = self._inputs
        keys, values = tuple(inputs), tuple(inputs.values())
        if (
            kept is not None
            and kept[0] == keys
            and all(a is b for a, b in zip(kept[1], values, strict=True))
        ):
            return kept[2]
        text = _text(dump_value(inputs, "inputs"))
        self._inputs = (keys, values, text)
        return text

    def _step_texts(self, steps: Steps) -> list[str]:
        kept = self._steps
        same = 0
        for (action, observation), (old_action, old_observation, _) in zip(
            steps, kept, strict=False
        ):
            if action is not old_action or observation is not old_observation:
                break
            same += 1
        del kept[same:]
        for i in range(same, len(steps)):
            action, observation = steps[i]
            kept.append((action, observation, _text(_dump_step(i, action, observation))))
        return [text for _, _, text in kept]


class RunState:
    """One agent run as data: what a checkpoint holds and what `AgentExecutor.resume` takes.

    Attributes:
        inputs: the run's inputs.
        steps: the ``(action, observation)`` pairs so far.
        iterations: the iterations done.
        elapsed: seconds the run has run (time spent paused not counted).
        middleware: each middleware's state, by its key (plain data).
        pending: the planned calls of a paused run (they run first on resume), or ``None``.
        interrupt: why the run paused, ``{"reason": ..., "data": ...}``, or ``None``.
        output_extras: keys added to the run's outputs (``"stopped_reason"``, ...).
        status: ``"running"`` (saved after a step), ``"interrupted"`` or ``"finished"``.
        finish: the final answer of a finished run, else ``None``.
        run_id: the run's id, the same across its pauses and resumes.
        seq: how many times the run has been saved (a later save has a higher number).
    """

    __slots__ = (
        "_resumed",
        "elapsed",
        "finish",
        "inputs",
        "interrupt",
        "iterations",
        "middleware",
        "output_extras",
        "pending",
        "run_id",
        "seq",
        "status",
        "steps",
    )

    def __init__(
        self,
        *,
        inputs: dict[str, Any],
        steps: Steps | None = None,
        iterations: int = 0,
        elapsed: float = 0.0,
        middleware: dict[str, Any] | None = None,
        pending: list[AgentAction] | None = None,
        interrupt: dict[str, Any] | None = None,
        output_extras: dict[str, Any] | None = None,
        status: RunStatus = "running",
        finish: AgentFinish | None = None,
        run_id: str = "",
        seq: int = 0,
    ) -> None:
        if status not in _STATUSES:
            raise ValueError(f"status must be one of {list(_STATUSES)}, got {status!r}")
        self.inputs = inputs
        self.steps: Steps = [] if steps is None else steps
        self.iterations = iterations
        self.elapsed = elapsed
        self.middleware: dict[str, Any] = {} if middleware is None else middleware
        self.pending = pending
        self.interrupt = interrupt
        self.output_extras: dict[str, Any] = {} if output_extras is None else output_extras
        self.status: RunStatus = status
        self.finish = finish
        self.run_id = run_id
        self.seq = seq
        self._resumed = False

    @classmethod
    def of_run(
        cls,
        run: AgentRun,
        *,
        status: RunStatus,
        run_id: str,
        seq: int,
        finish: AgentFinish | None = None,
        copied: bool = True,
    ) -> RunState:
        """`run`'s state now: a snapshot (lists and dicts copied, so the run can go on), or
        with ``copied=False`` a view of the run's own values (to be written at once)."""
        keep: Any = copy.deepcopy if copied else _same
        interrupt = None
        if status == "interrupted" and run.interrupt is not None:
            interrupt = {"reason": run.interrupt.reason, "data": keep(run.interrupt.data)}
        return cls(
            inputs=dict(run.inputs) if copied else run.inputs,
            steps=list(run.steps) if copied else run.steps,
            iterations=run.iterations,
            elapsed=run.elapsed_before if status == "interrupted" else run.time_elapsed,
            middleware=keep(run.state),
            pending=None if run.pending is None else list(run.pending),
            interrupt=interrupt,
            output_extras=keep(run.output_extras),
            status=status,
            finish=finish,
            run_id=run_id,
            seq=seq,
        )

    @property
    def interrupted(self) -> bool:
        """Whether the run paused and waits to be resumed."""
        return self.status == "interrupted"

    # -- the JSON form ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The JSON form as a dict of JSON types (see the module docstring).

        Raises:
            RunStateError: a value in the state is not plain data (names its path).
        """
        return {
            **self._head(),
            "inputs": dump_value(self.inputs, "inputs"),
            "steps": [_dump_step(i, action, obs) for i, (action, obs) in enumerate(self.steps)],
        }

    def _head(self) -> dict[str, Any]:
        """The JSON form less its inputs and steps (the parts a `StateWriter` keeps)."""
        return {
            "version": STATE_VERSION,
            "format": FORMAT,
            "run_id": self.run_id,
            "seq": self.seq,
            "status": self.status,
            "iterations": self.iterations,
            "elapsed": self.elapsed,
            "middleware": dump_value(self.middleware, "middleware"),
            "pending": None if self.pending is None else dump_value(self.pending, "pending"),
            "interrupt": None
            if self.interrupt is None
            else dump_value(self.interrupt, "interrupt"),
            "output_extras": dump_value(self.output_extras, "output_extras"),
            "finish": None if self.finish is None else dump_value(self.finish, "finish"),
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """The JSON form as text (UTF-8 safe: non-ASCII kept)."""
        if indent is None:
            return _text(self.to_dict())
        return json.dumps(self.to_dict(), ensure_ascii=False, allow_nan=False, indent=indent)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunState:
        """A state back from its JSON form.

        Raises:
            RunStateError: not a run state, a version this leanchain does not read, or a field
                that is missing, of the wrong type or holds an unknown type (names it).
        """
        if not isinstance(data, Mapping):
            raise RunStateError(f"A run state is a JSON object, got {type(data).__name__}")
        version = data.get("version")
        if data.get("format") != FORMAT or type(version) is not int:
            raise RunStateError(
                f"Not a leanchain run state: expected 'format': {FORMAT!r} and an int "
                f"'version', got format={data.get('format')!r}, version={version!r}"
            )
        if version != STATE_VERSION:
            newer = " (written by a newer leanchain)" if version > STATE_VERSION else ""
            raise RunStateError(
                f"Cannot read run state version {version}{newer}; this leanchain reads "
                f"version {STATE_VERSION}"
            )
        misfit = _misfit(data, _STATE_FIELDS, frozenset({"version", "format"}), _STATE_WORDING)
        if misfit is not None:
            raise RunStateError(f"Cannot read the run's state: {misfit}")
        if data["status"] not in _STATUSES:
            raise RunStateError(
                f"Cannot read the run's state: 'status' must be one of {list(_STATUSES)}, "
                f"got {data['status']!r}"
            )
        steps: Steps = []
        for i, pair in enumerate(data["steps"]):
            if type(pair) is not list or len(pair) != 2:
                raise RunStateError(
                    f"Cannot read the run's state: steps[{i}] is not an [action, observation] "
                    f"pair: {_short(pair)}"
                )
            action = load_value(pair[0], f"steps[{i}].action")
            if not isinstance(action, AgentAction):
                raise RunStateError(
                    f"Cannot read the run's state: steps[{i}].action is not an agent action"
                )
            steps.append((action, load_value(pair[1], f"steps[{i}].observation")))
        pending = None
        if data["pending"] is not None:
            pending = load_value(data["pending"], "pending")
            if not all(isinstance(a, AgentAction) for a in pending):
                raise RunStateError(
                    "Cannot read the run's state: 'pending' holds something that is not an "
                    "agent action"
                )
        interrupt = (
            None if data["interrupt"] is None else load_value(data["interrupt"], "interrupt")
        )
        finish = None if data["finish"] is None else load_value(data["finish"], "finish")
        if finish is not None and not isinstance(finish, AgentFinish):
            raise RunStateError("Cannot read the run's state: 'finish' is not an AgentFinish")
        return cls(
            inputs=load_value(data["inputs"], "inputs"),
            steps=steps,
            iterations=data["iterations"],
            elapsed=float(data["elapsed"]),
            middleware=load_value(data["middleware"], "middleware"),
            pending=pending,
            interrupt=interrupt,
            output_extras=load_value(data["output_extras"], "output_extras"),
            status=data["status"],
            finish=finish,
            run_id=data["run_id"],
            seq=data["seq"],
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> RunState:
        """A state back from `to_json` text.

        Raises:
            RunStateError: the text is not JSON, or not a run state this leanchain reads.
        """
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise RunStateError(f"A run state must be JSON text: {exc}") from None
        return cls.from_dict(data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunState):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__ if k != "_resumed")

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        pending = 0 if self.pending is None else len(self.pending)
        return (
            f"RunState(status={self.status!r}, iterations={self.iterations}, "
            f"steps={len(self.steps)}, pending={pending}, run_id={self.run_id!r}, seq={self.seq})"
        )
