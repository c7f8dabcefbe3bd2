"""`BaseTool`: a runnable that a model can call by name with arguments that match a schema.

A tool holds its settings and its argument schema, parses and validates an input against that
schema, and calls its function with the config published in the context. The run around that
call (callbacks, handled errors as observations, the `ToolMessage` answering a tool call) is
written once, in `leanchain.tools._runs`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, TypeAlias, cast

from pydantic import BaseModel

from leanchain._fields import init_fields
from leanchain._model_schema import model_schema
from leanchain.callbacks.manager import Callbacks, RunManager
from leanchain.messages import ToolCall
from leanchain.runnables.base import Runnable
from leanchain.runnables.concurrency import run_in_executor
from leanchain.runnables.config import (
    RunnableConfig,
    config_for_user_code,
    reset_config_context,
    set_config_context,
)
from leanchain.tools._injected import Injections, find_injections
from leanchain.tools._output import ErrorHandler, check_handler
from leanchain.tools._runs import NOT_QUICK, aexecute, call_config, execute
from leanchain.tools._schema import FunctionInfo, create_schema_from_function, inspect_function
from leanchain.tools._validation import PlainFields, plain_fields, validate_args

__all__ = ["ArgsSchema", "BaseTool", "ResponseFormat", "ToolInput", "single_input_parameters"]

ArgsSchema: TypeAlias = type[BaseModel] | dict[str, Any]
"""A pydantic model class (arguments are validated) or a JSON-schema dict (they are not)."""
ResponseFormat: TypeAlias = Literal["content", "content_and_artifact"]
ToolInput: TypeAlias = str | dict[str, Any] | ToolCall

_RESPONSE_FORMATS = ("content", "content_and_artifact")
_OWN_KEYWORDS = (
    "args_schema",
    "callbacks",
    "description",
    "extras",
    "handle_tool_error",
    "handle_validation_error",
    "idempotent",
    "metadata",
    "name",
    "response_format",
    "return_direct",
    "tags",
    "verbose",
)
_JSON_SCHEMA_STRING_INPUT = (
    "String tool inputs are not allowed when using tools with JSON schema args_schema."
)


def single_input_parameters() -> dict[str, Any]:
    """The parameters a model sees for a single-input tool: one string called ``__arg1``."""
    return {
        "properties": {"__arg1": {"title": "__arg1", "type": "string"}},
        "required": ["__arg1"],
        "type": "object",
    }


_SchemaReading: TypeAlias = tuple[
    type[BaseModel], tuple[tuple[str, str], ...], PlainFields | None, str | None
]


def _read_schema(model: type[BaseModel], names: tuple[tuple[str, str], ...]) -> _SchemaReading:
    """What `BaseTool._to_args_and_kwargs` reads of `model` and `names`, once per schema.

    Its plain fields (`plain_fields`) and the key a string input is given under: the first
    field's alias or name (``None`` when there is no such field). Pydantic's ``model_fields``
    is a class property that costs a few microseconds per read.
    """
    key = None
    if names:
        first = model.model_fields.get(names[0][0])
        key = None if first is None else first.alias or names[0][0]
    return model, names, plain_fields(model, names), key


def _overrides_run(cls: type[BaseTool]) -> bool:
    return cls._run is not BaseTool._run or cls._arun is not BaseTool._arun


def _is_tool_call(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "tool_call"


class BaseTool(Runnable[ToolInput, Any]):
    """A tool: a named function with a description and an argument schema.

    Invoke it with a string (for a one-argument tool), a dict of arguments, or a tool call
    (``{"name", "args", "id", "type": "tool_call"}``), which returns a `ToolMessage`.
    Subclass it and implement `_run` (and `_arun` for real async work), or build one with
    `@tool`, `StructuredTool.from_function` or `Tool`.

    Settings may be class attributes of a subclass or constructor arguments, and can be
    changed after construction (``my_tool.handle_tool_error = True``).

    Attributes:
        name: the name the model calls the tool by.
        description: what the tool does, for the model.
        args_schema: the arguments, as a pydantic model class (validated) or a JSON-schema
            dict (passed through). ``None`` on a subclass: inferred from `_run`'s signature.
        return_direct: an agent executor stops and returns this tool's observation.
        idempotent: calling it again repeats nothing (the default). ``False`` for a tool whose
            call has an effect a second call would repeat (a payment, a message sent): a
            `ToolPolicy` then never calls it again after an error that may have come after
            that effect (a timeout, a dropped connection).
        verbose: kept for LangChain compatibility; leanchain prints through callbacks.
        handle_tool_error: what a `ToolException` becomes: ``False`` re-raises, ``True`` its
            message, a str that text, a callable its result for the exception.
        handle_validation_error: the same for arguments that fail validation (``True``:
            ``"Tool input validation error"``).
        response_format: ``"content_and_artifact"`` when the function returns
            ``(content, artifact)``; the artifact travels on the `ToolMessage` only.
        metadata: metadata added to every run of this tool.
        tags: tags added to every run of this tool.
        callbacks: callback handlers added to every run of this tool.
        extras: provider-specific settings, not interpreted by leanchain.
    """

    name: str
    description: str = ""
    args_schema: ArgsSchema | None = None
    return_direct: bool = False
    idempotent: bool = True
    verbose: bool = False
    handle_tool_error: ErrorHandler = False
    handle_validation_error: ErrorHandler = False
    response_format: ResponseFormat = "content"
    metadata: dict[str, Any] | None = None
    tags: list[str] | None = None
    callbacks: Callbacks = None
    extras: dict[str, Any] | None = None

    _kind: ClassVar[str] = "BaseTool"

    def __init__(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        args_schema: ArgsSchema | None = None,
        return_direct: bool | None = None,
        idempotent: bool | None = None,
        verbose: bool | None = None,
        handle_tool_error: ErrorHandler = None,
        handle_validation_error: ErrorHandler = None,
        response_format: ResponseFormat | None = None,
        metadata: dict[str, Any] | None = None,
        tags: list[str] | None = None,
        callbacks: Callbacks = None,
        extras: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        given: dict[str, Any] = {
            "name": name,
            "description": description,
            "args_schema": args_schema,
            "return_direct": return_direct,
            "idempotent": idempotent,
            "verbose": verbose,
            "handle_tool_error": handle_tool_error,
            "handle_validation_error": handle_validation_error,
            "response_format": response_format,
            "metadata": metadata,
            "tags": tags,
            "callbacks": callbacks,
            "extras": extras,
        }
        for key, value in given.items():
            if value is not None:
                setattr(self, key, value)
        init_fields(self, fields, BaseTool, _OWN_KEYWORDS)
        if not isinstance(getattr(self, "name", None), str) or not self.name:
            raise TypeError(
                f"{type(self).__name__} needs a name: pass name=... or set it on the class"
            )
        if not isinstance(self.description, str):
            raise TypeError(f"description must be a str, got {type(self.description).__name__}")
        if self.response_format not in _RESPONSE_FORMATS:
            raise ValueError(
                "response_format must be 'content' or 'content_and_artifact', "
                f"got {self.response_format!r}"
            )
        check_handler("handle_tool_error", self.handle_tool_error)
        check_handler("handle_validation_error", self.handle_validation_error)
        schema = self.args_schema
        if not (
            schema is None
            or isinstance(schema, dict)
            or (isinstance(schema, type) and issubclass(schema, BaseModel))
        ):
            raise TypeError(
                f"args_schema must be a pydantic model class or a JSON-schema dict, got {schema!r}"
            )
        self._arg_names: tuple[type[BaseModel], tuple[tuple[str, str], ...]] | None = None
        self._run_info: FunctionInfo | None = None
        self._arun_info: FunctionInfo | None = None
        self._injected: tuple[type[BaseModel], Injections | None] | None = None
        self._reading: _SchemaReading | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, description={self.description!r})"

    def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str:
        """The tool's name (with a suffix for schema titles)."""
        return super().get_name(suffix, name=name or self.name)

    # -- schema -----------------------------------------------------------------------------

    def _schema(self) -> ArgsSchema | None:
        """The schema arguments are checked against (inferred from `_run` on a subclass)."""
        if self.args_schema is None and _overrides_run(type(self)):
            method = self._run if type(self)._run is not BaseTool._run else self._arun
            model, names = create_schema_from_function(self.name, method)
            self._arg_names = (model, names)
            self.args_schema = model
        return self.args_schema

    def _names(self, model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
        """``(field, keyword)`` pairs: an inferred schema maps fields back to parameters."""
        known = self._arg_names
        if known is not None and known[0] is model:
            return known[1]
        names = tuple((field, field) for field in model.model_fields)
        self._arg_names = (model, names)
        return names

    def get_input_schema(self, config: RunnableConfig | None = None) -> type[BaseModel]:
        """The argument model (for a JSON-schema dict or a single-input tool: the input type)."""
        schema = self._schema()
        if isinstance(schema, type):
            return schema
        return super().get_input_schema(config)

    def _injections(self) -> Injections | None:
        """The schema's injected arguments (`InjectedToolArg`), read once per schema."""
        schema = self._schema()
        if not isinstance(schema, type):
            return None
        known = self._injected
        if known is None or known[0] is not schema:
            known = (schema, find_injections(schema, self.name, self.description))
            self._injected = known
        return known[1]

    def _visible_schema(self) -> ArgsSchema | None:
        found = self._injections()
        return self._schema() if found is None else found.visible

    @property
    def tool_call_schema(self) -> ArgsSchema:
        """The schema a model sees: the argument schema less the injected arguments."""
        schema = self._visible_schema()
        return single_input_parameters() if schema is None else schema

    @property
    def args(self) -> dict[str, Any]:
        """The JSON-schema ``properties`` of the arguments the model fills in (with titles)."""
        schema = self._visible_schema()
        if schema is None:
            return {"tool_input": {"type": "string"}}
        json_schema = schema if isinstance(schema, dict) else model_schema(schema)
        return cast(dict[str, Any], json_schema.get("properties", {}))

    @property
    def is_single_input(self) -> bool:
        """Whether the tool takes exactly one argument."""
        return len(self.args) == 1

    # -- input parsing ----------------------------------------------------------------------

    def _to_args_and_kwargs(self, tool_input: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Positional and keyword arguments for the tool from its (validated) input.

        A string goes to the first argument; a dict is validated against a pydantic schema
        (extra keys are ignored) or passed as is with a JSON-schema dict.

        Raises:
            ToolInputValidationError: the arguments do not match the schema.
            ValueError: a string input for a tool whose schema is a JSON-schema dict.
        """
        schema = self._schema()
        if schema is None:
            if isinstance(tool_input, str):
                return (tool_input,), {}
            if isinstance(tool_input, dict):
                return (), dict(tool_input)
            raise TypeError(
                f"Tool {self.name!r} takes a string or a dict of arguments, "
                f"got {type(tool_input).__name__}"
            )
        if isinstance(schema, dict):
            if isinstance(tool_input, str):
                raise ValueError(_JSON_SCHEMA_STRING_INPUT)
            return (), dict(tool_input)
        names = self._names(schema)
        read = self._reading
        if read is None or read[0] is not schema or read[1] is not names:
            read = self._reading = _read_schema(schema, names)
        if isinstance(tool_input, str):
            if not names:
                return (), {}
            if read[3] is None:  # no such field: what reading the model's fields raises
                raise KeyError(names[0][0])
            tool_input = {read[3]: tool_input}
        return (), validate_args(self.name, schema, names, tool_input, read[2])

    # -- calling the tool -------------------------------------------------------------------

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        """Do the tool's work; subclasses implement this (or `_arun` only, for async tools).

        It may declare ``config`` (the run's config), ``run_manager`` (the tool's own run, or
        ``None`` when nothing listens) and ``callbacks`` (for child runs).
        """
        raise NotImplementedError(f"{self._kind} does not support sync invocation.")

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        """Async `_run`; by default runs `_run` in a worker thread."""
        return await run_in_executor(self._run, *args, **kwargs)

    def _inject(
        self, info: FunctionInfo, kwargs: dict[str, Any], config: RunnableConfig, run: Any
    ) -> dict[str, Any]:
        if info.config_param is not None:
            kwargs[info.config_param] = config_for_user_code(config)
        if info.wants_run_manager:
            kwargs["run_manager"] = run
        if info.wants_callbacks:
            kwargs["callbacks"] = run.child() if run is not None else config.get("callbacks")
        return kwargs

    def _method_info(self, is_async: bool) -> FunctionInfo:
        if not is_async:
            if self._run_info is None:
                self._run_info = inspect_function(self._run)
            return self._run_info
        if self._arun_info is None:
            overridden = type(self)._arun is not BaseTool._arun
            self._arun_info = inspect_function(self._arun if overridden else self._run)
        return self._arun_info

    def _call(self, tool_input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        """Parse `tool_input` and run the tool on it with `config` published."""
        args, kwargs = self._to_args_and_kwargs(tool_input)
        kwargs = self._inject(self._method_info(False), kwargs, config, run)
        token = set_config_context(config)
        try:
            return self._run(*args, **kwargs)
        finally:
            reset_config_context(token)

    async def _acall(self, tool_input: Any, config: RunnableConfig, run: RunManager | None) -> Any:
        """Async `_call`."""
        args, kwargs = self._to_args_and_kwargs(tool_input)
        kwargs = self._inject(self._method_info(True), kwargs, config, run)
        token = set_config_context(config)
        try:
            return await self._arun(*args, **kwargs)
        finally:
            reset_config_context(token)

    def _quick_call(self, tool_input: Any, config: RunnableConfig) -> Any:
        """The response by a short way for a call nobody listens to, or `NOT_QUICK`.

        The short way may skip `_injections` and `_call` only where they would change
        nothing (`FunctionTool` has one); a subclass takes the general way.
        """
        return NOT_QUICK

    async def _aquick_call(self, tool_input: Any, config: RunnableConfig) -> Any:
        """Async `_quick_call`."""
        return NOT_QUICK

    # -- one run, written once (`_runs`) ----------------------------------------------------

    _execute = execute
    _aexecute = aexecute

    # -- the public entry points ------------------------------------------------------------

    def invoke(self, input: ToolInput, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        """Run the tool; a tool-call input returns a `ToolMessage` answering that call."""
        if _is_tool_call(input):
            call = cast(dict[str, Any], input)
            return self._execute(dict(call["args"]), config, call.get("id"))
        return self._execute(input, config, None)

    async def ainvoke(
        self, input: ToolInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Any:
        """Async `invoke`."""
        if _is_tool_call(input):
            call = cast(dict[str, Any], input)
            return await self._aexecute(dict(call["args"]), config, call.get("id"))
        return await self._aexecute(input, config, None)

    def run(
        self,
        tool_input: str | dict[str, Any],
        *,
        callbacks: Callbacks = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        run_id: Any = None,
        config: RunnableConfig | None = None,
        tool_call_id: str | None = None,
        as_message: bool = True,
    ) -> Any:
        """Run the tool on `tool_input` (LangChain's older entry point).

        With a `tool_call_id` the result is a `ToolMessage` answering that call, unless
        ``as_message=False``: then the id only labels the run for the callbacks and the result
        is the tool's plain output (what an agent executor records as the observation).
        """
        if callbacks or tags or metadata or run_name is not None or run_id is not None:
            config = call_config(config, callbacks, tags, metadata, run_name, run_id)
        return self._execute(tool_input, config, tool_call_id, as_message)

    async def arun(
        self,
        tool_input: str | dict[str, Any],
        *,
        callbacks: Callbacks = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        run_name: str | None = None,
        run_id: Any = None,
        config: RunnableConfig | None = None,
        tool_call_id: str | None = None,
        as_message: bool = True,
    ) -> Any:
        """Async `run`."""
        if callbacks or tags or metadata or run_name is not None or run_id is not None:
            config = call_config(config, callbacks, tags, metadata, run_name, run_id)
        return await self._aexecute(tool_input, config, tool_call_id, as_message)
