"""The output-parser bases: parse, parse each streamed chunk, or parse the growing whole.

A parser is a runnable over a model's output — a string or a message (its text is used) — with
run type ``"parser"``. `parse_result` receives the model's outputs as a list of generations
whose first item is parsed, as in LangChain: a `ChatGeneration` for a message (a
`ChatGenerationChunk` for a streamed message's chunks so far), a `Generation` for a string (a
`GenerationChunk` likewise), so that parsers that need more than text (tool calls) can read
the message itself. The helpers `generation_text`/`generation_message` also read a bare string
or message, as a caller may pass them.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar, get_args, get_origin

from leanchain._fields import fields_repr, init_fields
from leanchain.messages import AIMessage, AIMessageChunk, BaseMessage, BaseMessageChunk
from leanchain.outputs import (
    ChatGeneration,
    ChatGenerationChunk,
    Generation,
    GenerationChunk,
)
from leanchain.runnables import Runnable, RunnableConfig, ensure_config

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager

__all__ = [
    "BaseCumulativeTransformOutputParser",
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "LanguageModelOutput",
    "generation_message",
    "generation_text",
]

T = TypeVar("T")

LanguageModelOutput = str | BaseMessage
"""What a parser takes: a model's text, or its message."""


def generation_message(generation: Any) -> BaseMessage | None:
    """The message behind a model output (a message, or a generation's ``message``)."""
    cls = type(generation)
    if cls is ChatGeneration or cls is ChatGenerationChunk:
        # Not a message: skip the isinstance that has pydantic look for its attributes.
        message = generation.message
    elif isinstance(generation, BaseMessage):
        return generation
    else:
        message = getattr(generation, "message", None)
    return message if isinstance(message, BaseMessage) else None


def generation_text(generation: Any) -> str:
    """The text of a model output: a string, a message's text, or a generation's text.

    Raises:
        TypeError: `generation` is none of those.
    """
    # Exact classes first: an isinstance of a message class costs pydantic a lookup or two.
    if type(generation) is str:
        return generation
    if type(generation) is AIMessage or type(generation) is AIMessageChunk:
        return generation.text
    if isinstance(generation, str):
        return generation
    if isinstance(generation, BaseMessage):
        return generation.text
    message = generation_message(generation)
    if message is not None:
        return message.text
    text = getattr(generation, "text", None)
    if isinstance(text, str):
        return text
    raise TypeError(f"Expected a str, a message or a generation, got {type(generation)}")


def as_generation(output: Any, *, chunk: bool = False) -> Generation:
    """A model output as the generation `parse_result` receives (generations pass unchanged).

    Args:
        output: a string, a message, or a generation.
        chunk: the output is a stream's chunks so far: a string becomes a `GenerationChunk`,
            an `AIMessageChunk` a `ChatGenerationChunk`.
    """
    if isinstance(output, Generation):
        return output
    if isinstance(output, str):
        return GenerationChunk(text=output) if chunk else Generation(text=output)
    if chunk and isinstance(output, AIMessageChunk):
        return ChatGenerationChunk(message=output)
    return ChatGeneration(message=output)


def _check_input(parser: Runnable[Any, Any], input: Any) -> LanguageModelOutput:
    if isinstance(input, (str, BaseMessage)):
        return input
    raise TypeError(f"{parser.get_name()} expected a str or a message as input, got {type(input)}")


class BaseOutputParser(Runnable[LanguageModelOutput, T]):
    """Turns a model's output (text or a message) into a value.

    Subclasses implement `parse`; parsers that need the message (not just its text) override
    `parse_result`. Invalid output raises `OutputParserException`. A subclass may declare its
    settings as annotated class fields, built with keywords (LangChain's way, `_fields`).
    """

    __slots__ = ()

    def __init__(self, **fields: Any) -> None:
        init_fields(self, fields, BaseOutputParser)

    @abstractmethod
    def parse(self, text: str) -> T:
        """The value in `text`.

        Raises:
            OutputParserException: `text` is not what this parser reads.
        """

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> T:
        """The value in the first model output of `result`.

        Args:
            result: model outputs as generations (a `ChatGeneration` holds the message); the
                first is parsed.
            partial: the output may be unfinished (streaming); cumulative parsers then return
                what they can, or ``None`` when nothing parses yet.
        """
        return self.parse(generation_text(result[0]))

    async def aparse_result(self, result: list[Generation], *, partial: bool = False) -> T:
        """Async `parse_result`; parsing is CPU work on text in memory, so it runs inline."""
        return self.parse_result(result, partial=partial)

    async def aparse(self, text: str) -> T:
        """Async `parse`; runs inline."""
        return self.parse(text)

    def parse_with_prompt(self, completion: str, prompt: Any) -> T:
        """Parse `completion`; the prompt is there for parsers that retry or fix output."""
        return self.parse(completion)

    def get_format_instructions(self) -> str:
        """Instructions for the model on how to format its reply for this parser."""
        raise NotImplementedError

    # -- running ----------------------------------------------------------------------------

    def _invoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> T:
        if isinstance(input, (str, BaseMessage)):  # `_check_input`, on the hot path inline
            return self._parse_one(input)
        return self._parse_one(_check_input(self, input))

    async def _ainvoke(self, input: Any, config: RunnableConfig, run: RunManager | None) -> T:
        output = _check_input(self, input)
        if type(self).aparse_result is BaseOutputParser.aparse_result:
            return self._parse_one(output)
        return await self.aparse_result([as_generation(output)])

    def _parse_one(self, output: LanguageModelOutput) -> T:
        """`parse_result` of one output; the default one is `parse` of its text, called so."""
        if type(self).parse_result is BaseOutputParser.parse_result:
            return self.parse(generation_text(output))
        return self.parse_result([as_generation(output)])

    def _quiet_parse(self) -> Callable[[Any], T] | None:
        """What `invoke` and `ainvoke` do with an exact `str` or `AIMessage` when no callback
        handler listens: a function of the output alone, for a caller that has checked its
        config already and holds the parser (`AgentRunnable` reads it once, when it is built).

        ``None`` when the class has its own `invoke`, `ainvoke`, `_ainvoke` or `aparse_result`:
        they are called then. A parser that reaches its decision more directly may override
        this.
        """
        cls = type(self)
        if (
            cls.invoke is BaseOutputParser.invoke
            and cls.ainvoke is BaseOutputParser.ainvoke
            and cls._ainvoke is BaseOutputParser._ainvoke
            and cls.aparse_result is BaseOutputParser.aparse_result
        ):
            return self._parse_one
        return None

    def invoke(
        self, input: LanguageModelOutput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> T:
        """Parse a model's text or message.

        Raises:
            OutputParserException: the output is not what this parser reads.
            TypeError: the input is neither a string nor a message.
        """
        effective = ensure_config(config)
        if not effective.get("callbacks"):
            # Nobody listens, so there is no run to start: the parse is a plain call.
            if type(input) is AIMessage or type(input) is str:  # what `_invoke` passes on
                return self._parse_one(input)
            return self._invoke(input, effective, None)
        return self._call_with_config(self._invoke, input, config, "parser")

    async def ainvoke(
        self, input: LanguageModelOutput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> T:
        """Async `invoke`."""
        effective = ensure_config(config)
        if not effective.get("callbacks"):
            return await self._ainvoke(input, effective, None)
        return await self._acall_with_config(self._ainvoke, input, config, "parser")

    @property
    def OutputType(self) -> Any:
        """The parser's value type, from its generic parameter (``Any`` when unknown)."""
        for klass in type(self).__mro__:
            for base in getattr(klass, "__orig_bases__", ()):
                origin = get_origin(base)
                args = get_args(base)
                if (
                    len(args) == 1
                    and isinstance(origin, type)
                    and issubclass(origin, BaseOutputParser)
                    and not isinstance(args[0], TypeVar)
                ):
                    return args[0]
        return Any

    def __repr__(self) -> str:
        return fields_repr(self, BaseOutputParser)


class BaseTransformOutputParser(BaseOutputParser[T]):
    """A parser that streams: each input chunk is parsed on its own as it arrives."""

    __slots__ = ()

    def _transform(self, input: Iterator[Any]) -> Iterator[T]:
        for chunk in input:
            yield self._parse_one(_check_input(self, chunk))

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[T]:
        inline = type(self).aparse_result is BaseOutputParser.aparse_result
        async for chunk in input:
            checked = _check_input(self, chunk)
            if inline:
                yield self._parse_one(checked)
            else:
                yield await self.aparse_result([as_generation(checked)])

    def transform(
        self,
        input: Iterator[LanguageModelOutput],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[T]:
        """Parse the chunks of a streamed model output as they arrive."""
        return self._transform_with_config(
            input, lambda chunks, cfg, run: self._transform(chunks), config, "parser"
        )

    def atransform(
        self,
        input: AsyncIterator[LanguageModelOutput],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[T]:
        """Async `transform`."""
        return self._atransform_with_config(
            input, lambda chunks, cfg, run: self._atransform(chunks), config, "parser"
        )

    def stream(
        self, input: LanguageModelOutput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[T]:
        """`transform` over one whole output."""
        return self.transform(iter((input,)), config, **kwargs)

    def astream(
        self, input: LanguageModelOutput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[T]:
        """Async `stream`."""
        return self.atransform(_aiter_one(input), config, **kwargs)


async def _aiter_one(item: Any) -> AsyncIterator[Any]:
    yield item


_NOTHING: Any = object()


def _accumulate(total: Any, chunk: Any) -> Any:
    """The output so far plus `chunk`: strings concatenate, message chunks merge."""
    if isinstance(total, str) and isinstance(chunk, str):
        return total + chunk
    if isinstance(total, BaseMessageChunk) and isinstance(chunk, BaseMessageChunk):
        return total + chunk
    # A whole message mixed with other pieces: only the text can be carried on.
    return generation_text(total) + generation_text(chunk)


class BaseCumulativeTransformOutputParser(BaseTransformOutputParser[T]):
    """A parser that streams the value of the output so far (a growing JSON object, say).

    Each chunk is added to the output so far (strings concatenate, message chunks merge with
    ``+``), which is parsed with ``partial=True`` (by `_stream_reader`); a value is yielded
    whenever it is not ``None`` and differs from the last one yielded. When the whole output
    does not parse partially, it is parsed once more with ``partial=False``, so a stream ends
    with the same value — or the same `OutputParserException` — as `invoke` on the whole
    output (a final value equal to the last one yielded but of another type, ``1.0`` after
    ``1``, is yielded too).
    """

    __slots__ = ()

    def _stream_reader(self) -> Callable[[Any], Any]:
        """A function for one stream: the output so far → ``parse_result(partial=True)``.

        This one parses the whole output after every chunk. A parser that can resume where
        the last chunk stopped returns a function that keeps that state for the stream, so
        that a stream costs its length, not its length times its number of chunks.
        """
        return lambda total: self.parse_result([as_generation(total, chunk=True)], partial=True)

    def _transform(self, input: Iterator[Any]) -> Iterator[T]:
        read = self._stream_reader()
        total: Any = None
        last: Any = None
        parsed: Any = None
        for chunk in input:
            chunk = _check_input(self, chunk)
            total = chunk if total is None else _accumulate(total, chunk)
            parsed = read(total)
            if parsed is not None and parsed != last:
                last = parsed
                yield parsed
        if total is not None:
            final = self._final(total, parsed, last)
            if final is not _NOTHING:
                yield final

    async def _atransform(self, input: AsyncIterator[Any]) -> AsyncIterator[T]:
        # The default aparse_result parses inline: then the stream reader serves both twins.
        inline = type(self).aparse_result is BaseOutputParser.aparse_result
        read = self._stream_reader() if inline else None
        total: Any = None
        last: Any = None
        parsed: Any = None
        async for chunk in input:
            chunk = _check_input(self, chunk)
            total = chunk if total is None else _accumulate(total, chunk)
            if read is not None:
                parsed = read(total)
            else:
                parsed = await self.aparse_result([as_generation(total, chunk=True)], partial=True)
            if parsed is not None and parsed != last:
                last = parsed
                yield parsed
        if total is not None:
            final = self._final(total, parsed, last)
            if final is not _NOTHING:
                yield final

    def _final(self, total: Any, parsed: Any, last: Any) -> Any:
        """What to yield once the input ends, so the stream ends where `invoke` would."""
        if parsed is None:
            # The whole output does not parse partially: parse it for real (and raise).
            final = self.parse_result([as_generation(total, chunk=True)])
            return final if final is not None and final != last else _NOTHING
        if parsed is not last and repr(parsed) != repr(last):
            # Equal but not the same: ``1`` streamed before the text grew to ``1.0``.
            return parsed
        return _NOTHING
