"""Plain arguments skip pydantic only where pydantic would hand them back unchanged.

`plain_fields` picks the schemas whose exact-typed inputs need no validation; `validate_args`
then passes such an input on as it is. Whatever the schema and the input, the result (the
keyword arguments, with their types) or the error is the one pydantic gives.
"""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from leanchain.tools import StructuredTool, ToolInputValidationError, tool
from leanchain.tools._validation import plain_fields, validate_args

SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Text(str):
    """A str subclass: pydantic turns it into a plain str."""


FIELD_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "described str": Annotated[str, "a description"],
    "short str": Annotated[str, Field(max_length=3)],
    "optional str": str | None,
    "int list": list[int],
}
CONFIGS = [
    ConfigDict(arbitrary_types_allowed=True),
    ConfigDict(extra="forbid"),
    ConfigDict(extra="allow"),
    ConfigDict(str_strip_whitespace=True),
    ConfigDict(strict=True),
]
VALUES = st.one_of(
    st.text(max_size=5),
    st.text(max_size=5).map(Text),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 3), max_size=2),
)


@st.composite
def schemas_and_inputs(draw: st.DrawFn) -> tuple[type[BaseModel], dict[str, Any]]:
    kinds = draw(st.lists(st.sampled_from(sorted(FIELD_TYPES)), min_size=1, max_size=3))
    fields: dict[str, Any] = {}
    for i, kind in enumerate(kinds):
        default = draw(st.sampled_from([..., "d", 0]))
        fields[f"f{i}"] = (FIELD_TYPES[kind], Field() if default is ... else Field(default))
    model = create_model("Args", __config__=draw(st.sampled_from(CONFIGS)), **fields)
    keys = st.sampled_from([*fields, "extra"])
    given_input = draw(st.dictionaries(keys, VALUES, max_size=4))
    return model, given_input


def outcome(model: type[BaseModel], tool_input: Any, plain: Any) -> Any:
    names = tuple((field, field) for field in model.model_fields)
    try:
        kwargs = validate_args("t", model, names, tool_input, plain)
    except ToolInputValidationError as e:
        return ("error", str(e))
    return [(key, type(value), repr(value)) for key, value in kwargs.items()]


@SETTINGS
@given(schemas_and_inputs())
def test_the_plain_reading_is_pydantics(case: tuple[type[BaseModel], dict[str, Any]]) -> None:
    model, tool_input = case
    names = tuple((field, field) for field in model.model_fields)
    plain = plain_fields(model, names)
    assert outcome(model, tool_input, plain) == outcome(model, tool_input, None)


def names_of(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    return tuple((field, field) for field in model.model_fields)


class Plain(BaseModel):
    text: str
    count: int = 1
    ratio: float
    flag: bool
    note: Annotated[str, "said in the schema"] = ""


class Checked(BaseModel):
    text: str

    @field_validator("text")
    @classmethod
    def _shout(cls, value: str) -> str:
        return value.upper()


class Whole(BaseModel):
    text: str

    @model_validator(mode="after")
    def _check(self) -> Whole:
        return self


class PostInit(BaseModel):
    text: str

    def model_post_init(self, context: Any) -> None:
        pass


class Aliased(BaseModel):
    text: str = Field(alias="body")


class Constrained(BaseModel):
    text: str = Field(min_length=2)


class Stripped(BaseModel):
    model_config = ConfigDict(str_strip_whitespace=True)
    text: str


class Nested(BaseModel):
    items: list[str]


def test_plain_schemas_are_read_without_pydantic() -> None:
    assert plain_fields(Plain, names_of(Plain)) == (
        ("text", "text", str),
        ("count", "count", int),
        ("ratio", "ratio", float),
        ("flag", "flag", bool),
        ("note", "note", str),
    )


@pytest.mark.parametrize(
    "model", [Checked, Whole, PostInit, Aliased, Constrained, Stripped, Nested]
)
def test_schemas_that_may_change_a_value_always_go_through_pydantic(
    model: type[BaseModel],
) -> None:
    assert plain_fields(model, names_of(model)) is None


def test_names_must_cover_every_field() -> None:
    assert plain_fields(Plain, (("text", "text"),)) is None


def test_a_field_validator_still_runs_on_a_tool_call() -> None:
    def echo(text: str) -> str:
        return text

    checked = StructuredTool.from_function(echo, description="Echo.", args_schema=Checked)
    assert checked.run({"text": "hi"}) == "HI"
    assert checked.invoke("hi") == "HI"


def test_an_inferred_schema_maps_plain_fields_to_parameters() -> None:
    @tool
    def add(a: int, b: float, model_name: str = "m") -> str:
        """Add."""
        return f"{a!r} {b!r} {model_name!r}"

    assert add.run({"a": 1, "b": 2.5, "model_name": "x"}) == "1 2.5 'x'"
    assert add.run({"a": 1, "b": 2}) == "1 2.0 'm'"
    assert add.run({"a": True, "b": 2.5}) == "1 2.5 'm'"


def test_a_wrong_type_is_still_the_validation_error() -> None:
    @tool
    def count(n: int) -> int:
        """Count."""
        return n

    with pytest.raises(ToolInputValidationError) as info:
        count.run({"n": "many"})
    assert "n" in str(info.value)
