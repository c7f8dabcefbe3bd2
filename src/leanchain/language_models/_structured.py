"""`with_structured_output`: a model bound to one forced tool, and a parser of its call."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import is_typeddict

from leanchain.errors import OutputParserException
from leanchain.messages import AIMessage
from leanchain.runnables.base import Runnable
from leanchain.runnables.config import RunnableConfig

if TYPE_CHECKING:
    from leanchain.callbacks.manager import RunManager

    from ._base import BaseChatModel, LanguageModelInput

__all__ = ["ToolCallOutputParser", "structured_output"]


class ToolCallOutputParser(Runnable[AIMessage, Any]):
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

    __slots__ = ("include_raw", "name", "tool_name", "validate")

    def __init__(
        self,
        tool_name: str,
        validate: Callable[[dict[str, Any]], Any] | None = None,
        *,
        include_raw: bool = False,
        name: str | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.validate = validate
        self.include_raw = include_raw
        self.name = name

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


def _validator(schema: Any) -> tuple[Callable[[dict[str, Any]], Any] | None, str]:
    """How to turn arguments into the result for `schema`, and the parser's display name."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_validate, "PydanticToolsParser"
    if isinstance(schema, Mapping):
        return None, "JsonOutputKeyToolsParser"
    if is_typeddict(schema):
        adapter: TypeAdapter[Any] = TypeAdapter(schema)
        return adapter.validate_python, "JsonOutputKeyToolsParser"
    raise ValueError(
        "with_structured_output takes a pydantic model class, a TypedDict class or a JSON "
        f"schema dict, got {schema!r}"
    )


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
    from leanchain.tools import convert_to_openai_tool

    from ._base import BaseChatModel

    if kwargs:
        raise ValueError(f"Received unsupported arguments {kwargs}")
    if method != "function_calling":
        raise ValueError(
            f"Unsupported method {method!r} for {type(model).__name__}.with_structured_output; "
            "expected 'function_calling'"
        )
    if type(model).bind_tools is BaseChatModel.bind_tools:
        raise NotImplementedError("with_structured_output is not implemented for this model.")
    validate, parser_name = _validator(schema)
    tool_name = convert_to_openai_tool(schema)["function"]["name"]
    llm = model.bind_tools([schema], tool_choice="any")
    parser = ToolCallOutputParser(tool_name, validate, include_raw=include_raw, name=parser_name)
    return llm | parser
