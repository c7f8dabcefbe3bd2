"""Tools rendered as text, in LangChain's exact format."""

from __future__ import annotations

from leanchain.tools import (
    BaseTool,
    Tool,
    render_text_description,
    render_text_description_and_args,
    tool,
)


@tool
def search(query: str) -> str:
    """Lookup things online."""
    return query


@tool
def calculator(expression: str) -> str:
    """Do math."""
    return expression


class _Mine(BaseTool):
    name: str = "mytool"
    description: str = "mine"


def test_function_backed_tools_show_their_signature() -> None:
    assert render_text_description([search, calculator]) == (
        "search(query: str) -> str - Lookup things online.\n"
        "calculator(expression: str) -> str - Do math."
    )


def test_and_args() -> None:
    assert render_text_description_and_args([search, calculator]) == (
        "search(query: str) -> str - Lookup things online., args: "
        "{'query': {'title': 'Query', 'type': 'string'}}\n"
        "calculator(expression: str) -> str - Do math., args: "
        "{'expression': {'title': 'Expression', 'type': 'string'}}"
    )


def test_lambda_tool() -> None:
    calc = Tool("calc", lambda s: s[::-1], "Reverse text")
    assert render_text_description([calc]) == "calc(s) - Reverse text"
    assert render_text_description_and_args([calc]) == (
        "calc(s) - Reverse text, args: {'tool_input': {'type': 'string'}}"
    )


def test_tool_without_a_function() -> None:
    assert render_text_description([_Mine()]) == "mytool - mine"
    assert (
        render_text_description_and_args([_Mine()])
        == "mytool - mine, args: {'tool_input': {'type': 'string'}}"
    )


def test_async_only_tool_has_no_function() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch."""
        return url

    assert render_text_description([fetch]) == "fetch - Fetch."


def test_defaults_and_injected_parameters_show_as_written() -> None:
    @tool
    def page(url: str, n: int = 1, config: dict[str, object] | None = None) -> list[str]:
        """Get pages."""
        return [url] * n

    assert render_text_description([page]) == (
        "page(url: str, n: int = 1, config: dict[str, object] | None = None) -> list[str]"
        " - Get pages."
    )


def test_no_tools() -> None:
    assert render_text_description([]) == ""
    assert render_text_description_and_args([]) == ""
