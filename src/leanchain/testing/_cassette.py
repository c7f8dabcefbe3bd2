"""`cassette()`: every chat-model call of a block written to a file, or played back from it.

Built on the model-call interception point (`leanchain.language_models.intercept_model_calls`),
so it sees the messages, not the HTTP: it works for any model class, streamed or not, sync or
async, and nothing below the model layer (keys, headers) ever reaches the file. The file
format is `_cassette_format`'s.

Modes:

- ``"record"``: every call runs; all of them are written to the file when the block ends
  (the file is replaced).
- ``"replay"``: no model runs; each call gets the reply recorded for the same request (the
  n-th time a request is asked, its n-th recording). A call nothing was recorded for raises
  `CassetteMismatchError`, which shows the closest recorded request and what differs.
- ``"once"`` (the default): replay when the file exists, else record.
- ``"none"``: the cassette stays out of the way (calls run; nothing is read or written).

With ``report=PATH`` the block also writes the page of its calls (``leanchain.report``): each
call recorded or replayed, in the order they started, timed, with its prompt, reply, tool calls
and tokens; a call that failed (a replayed request nothing matches, too) is marked, and so is
the block's own error. The page is written when the block ends, however it ends.

A replayed call still makes its chat-model run for callbacks and events, the same one the
model made when it was recorded (`ModelCall.answer`), so `astream_events` over a replayed run
equals the recorded run's but for run ids and times. Calls that raised are not recorded.
"""

from __future__ import annotations

import difflib
import json
import os
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias, cast

from leanchain.callbacks import BaseCallbackHandler
from leanchain.callbacks.manager import CallbackManager, merge_callbacks
from leanchain.errors import LeanchainError
from leanchain.language_models import ModelCall, ModelInterceptor, intercept_model_calls
from leanchain.messages import AIMessage, AIMessageChunk, message_chunk_to_message
from leanchain.runnables import RunnableConfig
from leanchain.testing._cassette_format import (
    CALLS,
    VERSION,
    CassetteFormatError,
    chunk_data,
    chunk_from_data,
    dumps,
    message_data,
    model_secrets,
    reply_from_data,
    request_data,
    request_key,
)
from leanchain.testing._cassette_log import CallLog
from leanchain.testing._recording import REDACTED

__all__ = ["Cassette", "CassetteEntry", "CassetteMismatchError", "CassetteMode", "cassette"]

CassetteMode: TypeAlias = Literal["record", "replay", "once", "none"]
"""How a cassette treats calls: record them, replay them, record once then replay, or neither."""

_MODES: tuple[str, ...] = ("record", "replay", "once", "none")
Call: TypeAlias = Literal["invoke", "ainvoke", "stream", "astream"]
_Answer: TypeAlias = AIMessage | Sequence[AIMessageChunk]


class CassetteMismatchError(LeanchainError, LookupError):
    """A replayed call that the cassette holds no recording for.

    Attributes:
        path: the cassette file.
        request: what the call asked, as the cassette writes requests.
        closest: the closest recorded request (``None`` when the cassette is empty).
        diff: a unified diff from `closest` to `request` (empty when there is none).
    """

    def __init__(
        self,
        message: str,
        *,
        path: Path,
        request: dict[str, Any],
        closest: dict[str, Any] | None,
        diff: str,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.request = request
        self.closest = closest
        self.diff = diff


@dataclass(slots=True)
class CassetteEntry:
    """One recorded call: what was asked and what the model answered."""

    call: Call
    """The method called: ``invoke``, ``ainvoke``, ``stream`` or ``astream``."""
    model: str
    """The model's name (for people; not part of the request's key)."""
    request: dict[str, Any]
    """The request, as JSON data (model type and parameters, messages, tools, stop, kwargs)."""
    reply: AIMessage | None = None
    """The whole reply (for a stream, the sum of its chunks)."""
    chunks: tuple[AIMessageChunk, ...] | None = None
    """The exact chunks of a streamed reply (``None`` when the call did not stream)."""
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Secret strings the model held, kept out of the file when it is written."""

    @property
    def key(self) -> str:
        """The request's stable key (a hash of its JSON)."""
        return request_key(self.request)

    def to_data(self) -> dict[str, Any]:
        """The entry as the file holds it."""
        data: dict[str, Any] = {"call": self.call, "model": self.model, "request": self.request}
        if self.reply is not None:
            data["reply"] = message_data(self.reply, self.secrets)
        if self.chunks is not None:
            data["chunks"] = [chunk_data(c, self.secrets) for c in self.chunks]
        return data


class _Tokens(BaseCallbackHandler):
    """Keeps the chunks an `invoke` streams for a token handler (the event stream)."""

    def __init__(self) -> None:
        self.chunks: list[AIMessageChunk] = []

    def on_llm_new_token(self, token: str, *, chunk: Any = None, **kwargs: Any) -> None:
        message = getattr(chunk, "message", chunk)
        if isinstance(message, AIMessageChunk):
            self.chunks.append(message)


def _wants_tokens(config: RunnableConfig) -> bool:
    callbacks = config.get("callbacks")
    if not callbacks:
        return False
    handlers = callbacks.handlers if isinstance(callbacks, CallbackManager) else callbacks
    return any(getattr(h, "wants_tokens", False) for h in handlers)


class Cassette(ModelInterceptor):
    """A cassette in use: the interceptor that records or replays, and its entries.

    Made by `cassette`; a context manager, sync (``with``) and async (``async with``).
    """

    __slots__ = (
        "_entered",
        "_lock",
        "_log",
        "_queues",
        "_scope",
        "entries",
        "mode",
        "path",
        "report",
    )

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: CassetteMode = "once",
        *,
        report: str | os.PathLike[str] | None = None,
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"cassette mode must be one of {', '.join(_MODES)}, got {mode!r}")
        if report is not None and mode == "none":
            raise ValueError(
                "a cassette in mode 'none' sees no calls, so it has no report to write: "
                "use mode 'record', 'replay' or 'once' with report=PATH"
            )
        self.path = Path(path)
        self.mode: CassetteMode = mode
        self.report = None if report is None else Path(report)
        """Where the page of the block's calls is written when it ends (``None``: nowhere)."""
        self._log: CallLog | None = None
        self.entries: list[CassetteEntry] = []
        self._queues: dict[str, deque[int]] = {}
        self._lock = threading.Lock()
        self._scope: AbstractContextManager[None] | None = None
        self._entered = False

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r}, entries={len(self.entries)})"

    # -- the block --------------------------------------------------------------------------

    def __enter__(self) -> Self:
        if self._entered:
            raise RuntimeError(f"cassette {self.path} is already in use; make a new one")
        self._entered = True
        if self.report is not None:
            self._log = CallLog(self.report)
        if self.mode == "once":
            self.mode = "replay" if self.path.exists() else "record"
        if self.mode == "replay":
            self.entries = load_entries(self.path)
            for index, entry in enumerate(self.entries):
                self._queues.setdefault(entry.key, deque()).append(index)
        if self.mode != "none":
            self._scope = intercept_model_calls(self)
            self._scope.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._scope is not None:
            self._scope.__exit__(exc_type, exc, traceback)
            self._scope = None
        if self.mode == "record":
            self.write()
        if self._log is not None:
            done = "recorded" if self.mode == "record" else "replayed"
            self._log.write(f"cassette {self.path.name} ({done})", exc)

    async def __aenter__(self) -> Self:
        return self.__enter__()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.__exit__(exc_type, exc, traceback)

    @property
    def unplayed(self) -> list[CassetteEntry]:
        """In replay, the recorded calls that no call has asked for (yet)."""
        with self._lock:
            left = sorted(i for queue in self._queues.values() for i in queue)
        return [self.entries[i] for i in left]

    def write(self) -> None:
        """Write the recorded calls to the file (done when a recording block ends)."""
        with self._lock:
            done = [e for e in self.entries if e.reply is not None or e.chunks is not None]
        document = {"version": VERSION, "entries": [e.to_data() for e in done]}
        text = dumps(document)
        for secret in {s for e in done for s in e.secrets}:
            text = text.replace(secret, REDACTED).replace(json.dumps(secret)[1:-1], REDACTED)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(self.path)

    # -- the hooks --------------------------------------------------------------------------

    def invoke(self, call: ModelCall, proceed: Callable[[], AIMessage]) -> AIMessage:
        """Record or replay an `invoke`."""
        if self.mode == "replay":
            played, answer = self._replay_reply(call, "invoke")
            if self._log is None:
                return call.answer(answer)
            with self._log.playing(played):
                return call.answer(answer)
        entry, tokens = self._start(call, "invoke")
        try:
            reply = proceed()
        except BaseException as error:
            self._drop(entry, error)
            raise
        self._finish(entry, reply, tokens)
        return reply

    async def ainvoke(
        self, call: ModelCall, proceed: Callable[[], Awaitable[AIMessage]]
    ) -> AIMessage:
        """Record or replay an `ainvoke`."""
        if self.mode == "replay":
            played, answer = self._replay_reply(call, "ainvoke")
            if self._log is None:
                return await call.aanswer(answer)
            with self._log.playing(played):
                return await call.aanswer(answer)
        entry, tokens = self._start(call, "ainvoke")
        try:
            reply = await proceed()
        except BaseException as error:
            self._drop(entry, error)
            raise
        self._finish(entry, reply, tokens)
        return reply

    def stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        """Record or replay a `stream`."""
        if self.mode == "replay":
            played, answer = self._replay_chunks(call, "stream")
            chunks = call.answer_stream(answer)
            return chunks if self._log is None else self._log.ended(played, chunks)
        return self._record_stream(call, proceed)

    def astream(
        self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
    ) -> AsyncIterator[AIMessageChunk]:
        """Record or replay an `astream`."""
        if self.mode == "replay":
            played, answer = self._replay_chunks(call, "astream")
            chunks = call.aanswer_stream(answer)
            return chunks if self._log is None else self._log.aended(played, chunks)
        return self._record_astream(call, proceed)

    # -- recording --------------------------------------------------------------------------

    def _start(self, call: ModelCall, kind: Call) -> tuple[CassetteEntry, _Tokens | None]:
        secrets = model_secrets(call.model)
        entry = CassetteEntry(
            kind, call.model.get_name(), request_data(call, secrets), secrets=secrets
        )
        with self._lock:
            self.entries.append(entry)
        if self._log is not None:
            self._log.begin(entry)
        tokens = None
        if kind in ("invoke", "ainvoke") and _wants_tokens(call.config):
            tokens = _Tokens()
            callbacks = merge_callbacks(call.config.get("callbacks"), [tokens])
            call.config = {**call.config, "callbacks": callbacks}
        return entry, tokens

    def _finish(self, entry: CassetteEntry, reply: AIMessage, tokens: _Tokens | None) -> None:
        entry.reply = reply
        if tokens is not None and tokens.chunks:
            entry.chunks = tuple(tokens.chunks)
        if self._log is not None:
            self._log.end(entry)

    def _finish_stream(self, entry: CassetteEntry, chunks: list[AIMessageChunk]) -> None:
        if not chunks:
            self._drop(entry)
            return
        total = chunks[0] + chunks[1:] if len(chunks) > 1 else chunks[0]
        entry.reply = cast(AIMessage, message_chunk_to_message(total))
        entry.chunks = tuple(chunks)
        if self._log is not None:
            self._log.end(entry)

    def _drop(self, entry: CassetteEntry, error: BaseException | None = None) -> None:
        """Leave a call out of the file (it raised, or stopped before its first chunk); the
        report still shows it."""
        with self._lock:
            self.entries.remove(entry)
        if self._log is not None:
            self._log.end(entry, error)

    def _record_stream(
        self, call: ModelCall, proceed: Callable[[], Iterator[AIMessageChunk]]
    ) -> Iterator[AIMessageChunk]:
        entry, _ = self._start(call, "stream")
        seen: list[AIMessageChunk] = []
        try:
            for chunk in proceed():
                seen.append(chunk)
                yield chunk
        except GeneratorExit:
            self._finish_stream(entry, seen)  # the caller stopped early: keep what it saw
            raise
        except BaseException as error:
            self._drop(entry, error)
            raise
        self._finish_stream(entry, seen)

    async def _record_astream(
        self, call: ModelCall, proceed: Callable[[], AsyncIterator[AIMessageChunk]]
    ) -> AsyncIterator[AIMessageChunk]:
        entry, _ = self._start(call, "astream")
        seen: list[AIMessageChunk] = []
        try:
            async for chunk in proceed():
                seen.append(chunk)
                yield chunk
        except GeneratorExit:
            self._finish_stream(entry, seen)
            raise
        except BaseException as error:
            self._drop(entry, error)
            raise
        self._finish_stream(entry, seen)

    # -- replaying --------------------------------------------------------------------------

    def _replay_reply(self, call: ModelCall, kind: Call) -> tuple[CassetteEntry, _Answer]:
        entry = self._match(call, kind)
        if entry.chunks is not None and (entry.reply is None or _wants_tokens(call.config)):
            return entry, entry.chunks
        assert entry.reply is not None
        return entry, entry.reply

    def _replay_chunks(self, call: ModelCall, kind: Call) -> tuple[CassetteEntry, _Answer]:
        entry = self._match(call, kind)
        if entry.chunks is not None:
            return entry, entry.chunks
        assert entry.reply is not None
        return entry, entry.reply

    def _match(self, call: ModelCall, kind: Call) -> CassetteEntry:
        request = request_data(call, model_secrets(call.model))
        key = request_key(request)
        with self._lock:
            queue = self._queues.get(key)
            if queue:
                entry = self.entries[queue.popleft()]
                if self._log is not None:
                    self._log.begin(entry)
                return entry
        error = mismatch(self.path, self.entries, request, kind, call.model.get_name())
        if self._log is not None:
            self._log.failed(CassetteEntry(kind, call.model.get_name(), request), error)
        raise error


def mismatch(
    path: Path,
    entries: Sequence[CassetteEntry],
    request: dict[str, Any],
    kind: str,
    model: str,
) -> CassetteMismatchError:
    """The error for a replayed call with no recording: the closest request and the diff."""
    wanted = dumps(request).splitlines()
    head = f"cassette {path}: no recorded call matches this {kind} of {model}"
    if not entries:
        return CassetteMismatchError(
            f"{head}; the cassette holds no calls. The call asks:\n" + "\n".join(wanted),
            path=path,
            request=request,
            closest=None,
            diff="",
        )
    key = request_key(request)
    same = [i for i, e in enumerate(entries) if e.key == key]
    if same:
        return CassetteMismatchError(
            f"{head}: the request was recorded {len(same)} time(s) (entry "
            f"{', '.join(str(i + 1) for i in same)}) and every recording has been played; "
            "the run asks it more often than the recorded one did",
            path=path,
            request=request,
            closest=entries[same[0]].request,
            diff="",
        )

    def likeness(index: int) -> float:
        recorded = dumps(entries[index].request).splitlines()
        return difflib.SequenceMatcher(None, recorded, wanted, autojunk=False).ratio()

    best = max(range(len(entries)), key=likeness)
    closest = entries[best].request
    diff = "\n".join(
        difflib.unified_diff(
            dumps(closest).splitlines(),
            wanted,
            fromfile=f"recorded (entry {best + 1} of {len(entries)}, {entries[best].call})",
            tofile=f"this call ({kind})",
            lineterm="",
            n=2,
        )
    )
    return CassetteMismatchError(
        f"{head}. The closest recorded request is entry {best + 1}; what differs "
        f"(- recorded, + this call):\n{diff}",
        path=path,
        request=request,
        closest=closest,
        diff=diff,
    )


def load_entries(path: Path) -> list[CassetteEntry]:
    """The entries of the cassette at `path`.

    Raises:
        FileNotFoundError: there is no such file.
        CassetteFormatError: the file is not a cassette this version can read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"cassette {path} does not exist: record it first (mode='record' or 'once')"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CassetteFormatError(f"cassette {path} is not JSON: {exc}") from None
    if not isinstance(document, dict) or "entries" not in document:
        raise CassetteFormatError(
            f"cassette {path}: expected an object with 'version' and 'entries'"
        )
    version = document.get("version")
    if version != VERSION:
        raise CassetteFormatError(
            f"cassette {path} is format version {version!r}; this leanchain reads version "
            f"{VERSION} (record it again)"
        )
    raw_entries = document["entries"]
    if not isinstance(raw_entries, list):
        raise CassetteFormatError(f"cassette {path}: 'entries' must be a list")
    return [_entry(raw, f"cassette {path} entry {i + 1}") for i, raw in enumerate(raw_entries)]


def _entry(raw: Any, where: str) -> CassetteEntry:
    if not isinstance(raw, dict):
        raise CassetteFormatError(f"{where}: expected an object")
    call = raw.get("call")
    if call not in CALLS:
        raise CassetteFormatError(
            f"{where}: 'call' must be one of {', '.join(CALLS)}, got {call!r}"
        )
    model = raw.get("model")
    request = raw.get("request")
    if not isinstance(model, str) or not isinstance(request, dict):
        raise CassetteFormatError(f"{where}: needs a 'model' name and a 'request' object")
    if not isinstance(request.get("messages"), list):
        raise CassetteFormatError(f"{where}: the request needs a 'messages' list")
    reply = None if raw.get("reply") is None else reply_from_data(raw["reply"], f"{where} reply")
    chunks = None
    if raw.get("chunks") is not None:
        pieces = raw["chunks"]
        if not isinstance(pieces, list) or not pieces:
            raise CassetteFormatError(f"{where}: 'chunks' must be a non-empty list")
        chunks = tuple(chunk_from_data(c, f"{where} chunk {j + 1}") for j, c in enumerate(pieces))
    if reply is None and chunks is None:
        raise CassetteFormatError(f"{where}: has neither a 'reply' nor 'chunks'")
    return CassetteEntry(call, model, request, reply, chunks)


def cassette(
    path: str | os.PathLike[str],
    mode: CassetteMode = "once",
    *,
    report: str | os.PathLike[str] | None = None,
) -> Cassette:
    """Record every chat-model call made inside the block to `path`, or replay them from it.

    Use it as ``with cassette("run.json"):`` or ``async with cassette("run.json"):``.

    Args:
        path: the JSON file.
        mode: ``"record"``, ``"replay"``, ``"once"`` (replay when the file exists, else
            record; the default) or ``"none"`` (calls run; nothing read or written).
        report: also write the HTML page of the block's calls here when it ends (see
            ``leanchain.report``): every call recorded or replayed, in order, timed.

    Raises:
        ValueError: an unknown `mode`, or a `report` with mode ``"none"``.
        FileNotFoundError: (on entering) replay of a file that does not exist.
        CassetteFormatError: (on entering) a file that is not a cassette this version reads.
        CassetteMismatchError: (inside) a replayed call that nothing was recorded for.
    """
    return Cassette(path, mode, report=report)
