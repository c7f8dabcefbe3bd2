"""`ChatPromptTemplate`: a list of message templates that formats to a `ChatPromptValue`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from leanchain.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from leanchain.prompts._base import BasePromptTemplate
from leanchain.prompts._chat_reuse import ReusePlan, Split, plan_reuse
from leanchain.prompts._message import (
    AIMessagePromptTemplate,
    BaseMessagePromptTemplate,
    BaseStringMessagePromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)
from leanchain.prompts._reuse import formats_as, head_key, snapshot, unchanged
from leanchain.prompts._string import check_template_format
from leanchain.prompts._values import ChatPromptValue

__all__ = ["ChatPromptTemplate", "MessageLikeRepresentation"]

MessageLikeRepresentation: TypeAlias = Any
"""A message template, a message, a ``(role, template)`` tuple, a ``{"role", "content"}``
dict, a bare template string (a human message) or a nested `ChatPromptTemplate`."""

AnyMessage = AIMessage | HumanMessage | ChatMessage | SystemMessage | FunctionMessage | ToolMessage
"""What a placeholder's list may hold, as the input schema reports it."""

_new = object.__new__

_ROLES: dict[str, type[BaseStringMessagePromptTemplate]] = {
    "human": HumanMessagePromptTemplate,
    "user": HumanMessagePromptTemplate,
    "ai": AIMessagePromptTemplate,
    "assistant": AIMessagePromptTemplate,
    "system": SystemMessagePromptTemplate,
}


def _placeholder_name(wrapped: Any) -> str:
    if not isinstance(wrapped, str):
        raise ValueError(f"Expected variable name to be a string. Got: {wrapped}")
    if len(wrapped) < 2 or wrapped[0] != "{" or wrapped[-1] != "}":
        raise ValueError(
            f"Invalid placeholder template: {wrapped}. "
            "Expected a variable name surrounded by curly braces."
        )
    return wrapped[1:-1]


def _from_role(role: str, template: Any, template_format: str) -> BaseMessagePromptTemplate:
    if role == "placeholder":
        if isinstance(template, str):
            return MessagesPlaceholder(_placeholder_name(template), optional=True)
        if isinstance(template, (list, tuple)) and len(template) == 2:
            wrapped, optional = template
            if isinstance(optional, bool):
                return MessagesPlaceholder(_placeholder_name(wrapped), optional=optional)
        raise ValueError(
            "Unexpected arguments for placeholder message type. Expected either a single "
            "string variable name or a list of [variable_name: str, is_optional: bool]. "
            f"Got: {template}"
        )
    cls = _ROLES.get(role)
    if cls is None:
        raise ValueError(
            f"Unexpected message type: {role}. "
            "Use one of 'human', 'user', 'ai', 'assistant', or 'system'."
        )
    return cls.from_template(template, template_format=template_format)


def _role_of_class(cls: type) -> str | None:
    """The type tag of a message class (``HumanMessage`` → ``"human"``)."""
    fields = getattr(cls, "model_fields", None)
    if isinstance(fields, dict) and "type" in fields:
        default = fields["type"].default
        return default if isinstance(default, str) else None
    return None


def _convert(message: MessageLikeRepresentation, template_format: str) -> Any:
    """One element of ``from_messages`` as a message template, a message or a chat prompt."""
    if isinstance(message, (BaseMessagePromptTemplate, BaseMessage, ChatPromptTemplate)):
        return message
    if isinstance(message, str):
        return HumanMessagePromptTemplate.from_template(message, template_format=template_format)
    if isinstance(message, dict):
        if set(message) != {"content", "role"}:
            raise ValueError(
                f"Expected dict to have exact keys 'role' and 'content'. Got: {message}"
            )
        role, template = message["role"], message["content"]
    elif isinstance(message, tuple):
        if len(message) != 2:
            raise ValueError(f"Expected 2-tuple of (role, template), got {message}")
        role, template = message
    else:
        raise NotImplementedError(f"Unsupported message type: {type(message)}")
    if isinstance(role, str):
        return _from_role(role, template, template_format)
    if isinstance(role, type):
        if issubclass(role, BaseStringMessagePromptTemplate):
            return role.from_template(template, template_format=template_format)
        tag = _role_of_class(role)
        if tag is not None:
            return _from_role(tag, template, template_format)
    raise ValueError(f"Unexpected message type: {role}. Use a role string or a message class.")


class ChatPromptTemplate(BasePromptTemplate):
    """A chat prompt: ``ChatPromptTemplate.from_messages([("system", "..."), ("human", "{q}")])``.

    Elements may be ``(role, template)`` tuples (roles "system", "human"/"user",
    "ai"/"assistant"; ``("placeholder", "{name}")`` is an optional `MessagesPlaceholder`),
    messages (kept as they are: their braces are not fields), message templates, placeholders,
    bare strings (human templates), ``{"role", "content"}`` dicts and nested chat prompts.

    Required variables are sorted into `input_variables`; optional placeholders are listed in
    `optional_variables` and pre-filled with ``[]`` in `partial_variables`.

    Raises:
        TemplateValidationError: a template field is not a plain variable name.
        ValueError: an unknown role, a malformed placeholder, or (with `validate_template`)
            declared input variables that differ from the templates' variables.
    """

    __slots__ = ("_explicit_partials", "_plan", "messages", "template_format")

    def __init__(
        self,
        messages: Sequence[MessageLikeRepresentation],
        *,
        template_format: str = "f-string",
        partial_variables: Mapping[str, Any] | None = None,
        input_variables: Sequence[str] | None = None,
        validate_template: bool = False,
    ) -> None:
        check_template_format(template_format)
        converted = [_convert(message, template_format) for message in messages]
        explicit = dict(partial_variables or {})
        partials = dict(explicit)
        names: set[str] = set()
        optional: set[str] = set()
        for item in converted:
            if isinstance(item, BaseMessage):
                continue
            names.update(item.input_variables)
            if (
                isinstance(item, MessagesPlaceholder)
                and item.optional
                and item.variable_name not in partials
            ):
                partials[item.variable_name] = []
                optional.add(item.variable_name)
        required = names - set(partials) - optional
        if validate_template and input_variables is not None and required != set(input_variables):
            raise ValueError(
                f"Got mismatched input_variables. Expected: {required}. Got: {input_variables}"
            )
        self.messages: list[Any] = converted
        """The message templates, messages and nested chat prompts, in order."""
        self.template_format = template_format
        """Always ``"f-string"``."""
        self._explicit_partials = explicit
        self._partials = partials
        self._required = tuple(sorted(required))
        self._optional = tuple(sorted(optional))
        self._plan: ReusePlan | None = None
        """What formatting again keeps (`prepare_reuse`), decided on the first reuse."""

    @classmethod
    def from_messages(
        cls, messages: Sequence[MessageLikeRepresentation], template_format: str = "f-string"
    ) -> ChatPromptTemplate:
        """A chat prompt from message-likes (see the class docstring)."""
        return cls(messages, template_format=template_format)

    @classmethod
    def from_template(cls, template: str, **kwargs: Any) -> ChatPromptTemplate:
        """A chat prompt of one human message template."""
        return cls([HumanMessagePromptTemplate.from_template(template, **kwargs)])

    # -- formatting -------------------------------------------------------------------------

    def _format_into(self, values: Mapping[str, Any], out: list[BaseMessage]) -> None:
        """Append the messages for `values` (partials not yet merged) to `out`."""
        values = self._merge_partials(values)
        for item in self.messages:
            if isinstance(item, BaseMessage):
                out.append(item)
            else:
                item._format_into(values, out)

    def format_messages(self, /, **kwargs: Any) -> list[BaseMessage]:
        """The messages for these variables.

        Raises:
            MissingPromptVariablesError: a required variable is missing.
            ValueError: a placeholder's value is not a list.
        """
        out: list[BaseMessage] = []
        self._format_into(self._check_missing(kwargs), out)
        return out

    async def aformat_messages(self, /, **kwargs: Any) -> list[BaseMessage]:
        """Async `format_messages` (formatting never blocks, so it runs inline)."""
        return self.format_messages(**kwargs)

    def _format_prompt(self, values: Mapping[str, Any]) -> ChatPromptValue:
        out: list[BaseMessage] = []
        self._format_into(values, out)
        return ChatPromptValue(out)

    def format_prompt_reusing(
        self, values: Mapping[str, Any], memo: dict[Any, Any], varying: str
    ) -> ChatPromptValue:
        """`format_prompt` of `values`, keeping the messages before the last part (which
        reads `varying`: a placeholder for it, or the human turn that holds it) in `memo`
        while the values they read are the same (`BasePromptTemplate`).

        A last human turn whose text ends with `varying` keeps its text before it too. A
        reuse checks that the messages, the partials and the last part are the objects the
        head was formatted from and that the values read are the same; the required
        variables are then there too (the head and the kept text read every one but
        `varying`, which must be given), except before a last part formatted anew.
        """
        kept = memo.get(head_key(self))
        if kept is not None:
            messages, partials, last, reads, head, split = kept
            if (
                messages is self.messages
                and partials is self._partials
                and messages[-1] is last
                and unchanged(reads, values)
            ):
                pad = values.get(varying)
                out = head.copy()
                if type(last) is MessagesPlaceholder and type(pad) is list:
                    last._extend(pad, out)
                elif (  # the last turn still formats from the prompt and text kept
                    split is not None
                    and type(pad) is str
                    and last.prompt is split[0]
                    and split[0].template is split[1]
                    and not last.additional_kwargs
                ):
                    out.append(split[4](split[2] + pad + split[3]))
                else:
                    last._format_into(self._merge_partials(self._check_missing(values)), out)
                value = _new(ChatPromptValue)  # (`ChatPromptValue(out)`, a call less)
                value.messages = out
                return value
        return self._format_and_keep(self._check_missing(values), memo, varying)

    def prepare_reuse(self, varying: str) -> None:
        """Decide now what `format_prompt_reusing` keeps with `varying` changing, and format
        the parts that read nothing but the partial values (`ReusePlan`): an agent does this
        when it is built, so that none of its runs does."""
        self._reuse_plan(varying)

    def _reuse_plan(self, varying: str) -> ReusePlan:
        """The plan for `varying`: the one kept while it fits the prompt, else a new one."""
        messages, partials = self.messages, self._partials
        try:
            plan = self._plan
        except AttributeError:  # a subclass that did not call ``__init__``
            plan = None
        if plan is None or not plan.fits(messages, partials, varying):
            plan = self._plan = plan_reuse(
                messages, partials, varying, formats_as(self, ChatPromptTemplate)
            )
        return plan

    def _format_and_keep(
        self, values: Mapping[str, Any], memo: dict[Any, Any], varying: str
    ) -> ChatPromptValue:
        """Format `values` and keep the head for the next call, as the plan allows."""
        plan = self._reuse_plan(varying)
        messages, partials = self.messages, self._partials
        if not plan.keeps:
            return self._format_prompt(values)
        merged = {**partials, **values} if partials else values  # (none callable: `fixed`)
        head = plan.head(values, merged)
        last = messages[-1]
        split: Split | None = None
        if plan.last is not None:
            lead, rest, builder = plan.last
            prompt = last.prompt
            split = (prompt, prompt.template, lead.format(merged), rest, builder)
        reads = snapshot(values, partials, plan.names, plan.placeholders)
        if reads is not None:
            memo[head_key(self)] = (messages, partials, last, reads, head, split)
        pad = merged.get(varying)
        if split is not None and type(pad) is str:  # the last turn as a reuse builds it
            return ChatPromptValue([*head, split[4](split[2] + pad + split[3])])
        out = head.copy()
        last._format_into(merged, out)
        return ChatPromptValue(out)

    def format_prompt(self, /, **kwargs: Any) -> ChatPromptValue:
        """The `ChatPromptValue` for these variables."""
        return self._format_prompt(self._check_missing(kwargs))

    def format(self, /, **kwargs: Any) -> str:
        """The messages as a transcript (``"System: ...\\nHuman: ..."``)."""
        return self.format_prompt(**kwargs).to_string()

    def partial(self, /, **kwargs: Any) -> ChatPromptTemplate:
        """A copy with these variables pre-filled (values or zero-argument callables)."""
        return ChatPromptTemplate(
            self.messages,
            template_format=self.template_format,
            partial_variables={**self._explicit_partials, **kwargs},
        )

    # -- composition ------------------------------------------------------------------------

    def __add__(self, other: Any) -> ChatPromptTemplate:
        """This prompt followed by `other`: a chat prompt, a message-like, or a list of them.

        A ``(role, template)`` tuple is one message; a string is a human template.

        Raises:
            NotImplementedError: `other` is none of those.
        """
        partials = dict(self._explicit_partials)
        if isinstance(other, ChatPromptTemplate):
            partials.update(other._explicit_partials)
            tail = other.messages
        elif isinstance(other, (BaseMessagePromptTemplate, BaseMessage, str, tuple, dict)):
            tail = [_convert(other, self.template_format)]
        elif isinstance(other, list):
            tail = [_convert(item, self.template_format) for item in other]
        else:
            raise NotImplementedError(f"Unsupported operand type for +: {type(other)}")
        return ChatPromptTemplate(
            [*self.messages, *tail],
            template_format=self.template_format,
            partial_variables=partials,
        )

    def append(self, message: MessageLikeRepresentation) -> None:
        """Add `message` at the end, in place (LangChain's); the variables are recomputed.

        A prompt is otherwise immutable: build it completely before sharing it between
        threads, or use ``+``, which returns a new prompt.
        """
        self.extend([message])

    def extend(self, messages: Sequence[MessageLikeRepresentation]) -> None:
        """Add `messages` at the end, in place (see `append`)."""
        ChatPromptTemplate.__init__(
            self,
            [*self.messages, *(_convert(m, self.template_format) for m in messages)],
            template_format=self.template_format,
            partial_variables=self._explicit_partials,
        )

    def __len__(self) -> int:
        return len(self.messages)

    def __getitem__(self, index: int) -> Any:
        """The element at `index` (a message template, a message or a nested chat prompt)."""
        return self.messages[index]

    # -- schemas and identity ---------------------------------------------------------------

    def _input_types(self) -> Mapping[str, Any]:
        return {
            item.variable_name: list[AnyMessage]
            for item in self.messages
            if isinstance(item, MessagesPlaceholder)
        }

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ChatPromptTemplate)
            and other.messages == self.messages
            and other._explicit_partials == self._explicit_partials
        )

    def __hash__(self) -> int:
        return hash((ChatPromptTemplate, len(self.messages), self._required))

    def __repr__(self) -> str:
        return (
            f"ChatPromptTemplate(input_variables={list(self._required)!r}, "
            f"messages={self.messages!r})"
        )
