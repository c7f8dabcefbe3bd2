"""`with_structured_output`: a model asked for one shape of answer, and a parser of the reply.

Two ways to ask: a forced call of one tool made from the schema (``"function_calling"``, every
model that can call tools), or a reply whose text is JSON (``"json_schema"`` and ``"json_mode"``,
for models whose provider can constrain the reply, such as ChatOpenAI's ``response_format``;
``json_mode`` sends no schema, and may have none to validate against). Both parsers give
the same results and errors, and the same ``{"raw", "parsed", "parsing_error"}`` with
`include_raw`. Streamed, a forced tool call yields its value as the arguments grow
(``_structured_stream``); a JSON reply, and any reply with `include_raw`, yields it once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from leanchain._partial_json import parse_complete_json
from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager

    from ._base import BaseChatModel, LanguageModelInput

__all__ = [
    "JsonReplyOutputParser",
    "ToolCallOutputParser",
    "check_method",
    "json_reply_output",
    "structured_output",
    "tool_call_output",
]

TOOL_CALLING_ONLY = ("function_calling",)
"""The methods of a model that only knows how to answer through a forced tool call."""


class _ReplyParser(Runnable[AIMessage, Any]):
    """A parser of a model's reply; with `include_raw`, errors are returned, not raised."""

    __slots__ = ("include_raw", "name")

    def __init__(self, *, include_raw: bool, name: str | None) -> None:
        self.include_raw = include_raw
        self.name = name

    def parse(self, message: AIMessage) -> Any:
        """The value in `message`."""
        raise NotImplementedError

    def _run(self, message: AIMessage, config: RunnableConfig, run: RunManager | None) -> Any:
        if not self.include_raw:
            return self.parse(message)
        try:
            return {"raw": message, "parsed": self.parse(message), "parsing_error": None}
        except OutputParserException as exc:
            return {"raw": message, "parsed": None, "parsing_error": exc}

    def invoke(self, input: AIMessage, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Parse `input`, a model's reply."""
        return self._call_with_config(self._run, input, config, "parser")

    async def ainvoke(
        self, input: AIMessage, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Async `invoke` (parsing does no I/O, so it runs inline)."""

        async def run(message: AIMessage, conf: RunnableConfig, manager: Any) -> Any:
            return self._run(message, conf, manager)

        return await self._acall_with_config(run, input, config, "parser")


class ToolCallOutputParser(_ReplyParser):
    """Reads the arguments of the first call of one tool from a model's reply.

    Args:
        tool_name: the tool whose call to read.
        validate: turns the arguments dict into the result (``None``: the dict itself).
        include_raw: return ``{"raw", "parsed", "parsing_error"}`` instead of raising.
        name: the name shown in callbacks and events.

    Raises:
        OutputParserException: (when invoked, without `include_raw`) the reply has no call of
            the tool, its arguments are not JSON, or they do not validate.
    """

    __slots__ = ("tool_name", "validate")

    def __init__(
        self,
        tool_name: str,
        validate: Callable[[dict[str, Any]], Any] | None = None,
        *,
        include_raw: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(include_raw=include_raw, name=name)
        self.tool_name = tool_name
        self.validate = validate

    def __repr__(self) -> str:
        return f"ToolCallOutputParser(tool_name={self.tool_name!r})"

    def parse(self, message: AIMessage) -> Any:
        """The validated arguments of the tool's first call in `message`."""
        for call in message.tool_calls:
            if call["name"] == self.tool_name:
                return self._validated(call["args"])
        for bad in message.invalid_tool_calls:
            if bad["name"] == self.tool_name:
                raise OutputParserException(
                    f"The model called {self.tool_name!r} with arguments that are not a JSON "
                    f"object: {bad['args']!r}",
                    llm_output=bad["args"],
                )
        _raise_refusal(message, self.tool_name)
        called = [call["name"] for call in message.tool_calls]
        raise OutputParserException(
            f"Expected the model to call the tool {self.tool_name!r}, but it "
            + (f"called {called!r}" if called else f"answered with text: {message.text!r}"),
            llm_output=message.text,
        )

    def _validated(self, args: dict[str, Any]) -> Any:
        if self.validate is None:
            return args
        try:
            return self.validate(args)
        except ValidationError as exc:
            raise OutputParserException(
                f"Failed to parse {self.tool_name} from the arguments {json.dumps(args)}: {exc}",
                llm_output=json.dumps(args),
            ) from exc


class JsonReplyOutputParser(_ReplyParser):
    """Reads a model's reply text as one complete JSON value (a ``json_schema`` answer).

    The text must be JSON and nothing else, as a provider that constrains the reply sends it:
    no code fences, and a reply cut short (by a token limit, say) is an error, not repaired.

    Args:
        schema_name: the schema's name, for error messages.
        validate: turns the JSON value into the result (``None``: the value itself).
        include_raw: return ``{"raw", "parsed", "parsing_error"}`` instead of raising.
        name: the name shown in callbacks and events.

    Raises:
        OutputParserException: (when invoked, without `include_raw`) the model refused
            (``additional_kwargs["refusal"]``), its text is not JSON, or the value does not
            validate.
    """

    __slots__ = ("schema_name", "validate")

    def __init__(
        self,
        schema_name: str,
        validate: Callable[[Any], Any] | None = None,
        *,
        include_raw: bool = False,
        name: str | None = None,
    ) -> None:
        super().__init__(include_raw=include_raw, name=name)
        self.schema_name = schema_name
        self.validate = validate

    def __repr__(self) -> str:
        return f"JsonReplyOutputParser(schema_name={self.schema_name!r})"

    def parse(self, message: AIMessage) -> Any:
        """The validated JSON value of `message`'s text."""
        _raise_refusal(message, self.schema_name)
        text = message.text
        try:
            value = parse_complete_json(text)
        except json.JSONDecodeError as exc:
            raise OutputParserException(f"Invalid json output: {text}", llm_output=text) from exc
        if self.validate is None:
            return value
        try:
            return self.validate(value)
        except ValidationError as exc:
            raise OutputParserException(
                f"Failed to parse {self.schema_name} from completion {text}. Got: {exc}",
                llm_output=text,
            ) from exc


def _raise_refusal(message: AIMessage, schema_name: str) -> None:
    """Raise when the provider says the model refused (OpenAI's ``message.refusal``)."""
    refusal = message.additional_kwargs.get("refusal")
    if refusal:
        raise OutputParserException(
            f"The model refused to answer with {schema_name}: {refusal!r}", llm_output=refusal
        )


def _validator(schema: Any) -> tuple[Callable[[Any], Any] | None, bool]:
    """How to turn a value into the result for `schema`, and whether it is a pydantic model."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate, True
    if isinstance(schema, Mapping):
        return None, False
    if is_typeddict(schema):
        adapter: TypeAdapter[Any] = TypeAdapter(schema)
        return adapter.validate_python, False
    raise ValueError(
        "with_structured_output takes a pydantic model class, a TypedDict class or a JSON "
        f"schema dict, got {schema!r}"
    )


def check_method(model: BaseChatModel, method: str, supported: Sequence[str]) -> None:
    """Raise the error for a `method` that `model` does not support.

    Raises:
        ValueError: `method` is not one of `supported`.
    """
    if method in supported:
        return
    names = [repr(name) for name in supported]
    expected = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    raise ValueError(
        f"Unsupported method {method!r} for {type(model).__name__}.with_structured_output; "
        f"expected {expected}"
    )


def tool_call_output(
    model: BaseChatModel, schema: Any, *, include_raw: bool, **bind_kwargs: Any
) -> Runnable[LanguageModelInput, Any]:
    """`model` forced to call one tool made from `schema`, followed by a parser of the call.

    Streamed (without `include_raw`), the value grows with the call's arguments: partial
    dicts, or for a pydantic schema the instances they validate to; the last value is the one
    `invoke` returns (see `StructuredToolCallParser`).

    Args:
        model: the model.
        schema: a pydantic model class, a TypedDict class or a JSON schema dict.
        include_raw: as for `BaseChatModel.with_structured_output`.
        **bind_kwargs: more arguments for the model's `bind_tools` (``strict=``,
            ``tool_choice=`` instead of ``"any"``, ...).

    Raises:
        ValueError: `schema` is none of the above.
        NotImplementedError: `model` cannot call tools.
    """
    from leanchain.tools import convert_to_openai_tool

    from ._base import BaseChatModel

    if type(model).bind_tools is BaseChatModel.bind_tools:
        raise NotImplementedError("with_structured_output is not implemented for this model.")
    validate, is_model = _validator(schema)
    tool_name = convert_to_openai_tool(schema)["function"]["name"]
    # A provider may force its tool by name instead (bind_kwargs["tool_choice"]).
    llm = model.bind_tools([schema], **{"tool_choice": "any", **bind_kwargs})
    parser_name = "PydanticToolsParser" if is_model else "JsonOutputKeyToolsParser"
    parser = ToolCallOutputParser(tool_name, validate, include_raw=include_raw, name=parser_name)
    if include_raw:
        return llm | parser  # one result for the whole reply (LangChain streams none either)
    from ._structured_stream import StructuredToolCallParser

    return llm | StructuredToolCallParser(parser, partial_instances=is_model)


def json_reply_output(
    model: BaseChatModel,
    schema: Any,
    *,
    include_raw: bool,
    request: Callable[[Any], tuple[str, Mapping[str, Any]]],
) -> Runnable[LanguageModelInput, Any]:
    """`model` asked for a JSON reply that fits `schema`, followed by a parser of its text.

    Args:
        model: the model.
        schema: a pydantic model class, a TypedDict class, a JSON schema dict, or ``None``
            (the reply's JSON value as it is, for a request that sends no schema).
        include_raw: as for `BaseChatModel.with_structured_output`.
        request: the provider's way to ask: from `schema`, the schema's name and the
            arguments to bind (e.g. ``{"response_format": {...}}``).

    Raises:
        ValueError: `schema` is none of the above.
    """
    validate, is_model = (None, False) if schema is None else _validator(schema)
    schema_name, bind_kwargs = request(schema)
    llm = model.bind(**bind_kwargs)
    parser_name = "PydanticOutputParser" if is_model else "JsonOutputParser"
    parser = JsonReplyOutputParser(schema_name, validate, include_raw=include_raw, name=parser_name)
    return llm | parser


def structured_output(
    model: BaseChatModel,
    schema: Any,
    *,
    include_raw: bool,
    method: str,
    **kwargs: Any,
) -> Runnable[LanguageModelInput, Any]:
    """`model` forced to call one tool made from `schema`, followed by a parser of the call.

    See `BaseChatModel.with_structured_output`.
    """
    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs}")
    check_method(model, method, TOOL_CALLING_ONLY)
    return tool_call_output(model, schema, include_raw=include_raw)
