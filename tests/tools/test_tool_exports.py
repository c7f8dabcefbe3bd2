"""`leanchain.tools.__all__` matches the package's public names."""

from __future__ import annotations

import leanchain.tools as tools
from leanchain.errors import ToolException


def test_all_is_exactly_the_public_names() -> None:
    public = {name for name in vars(tools) if not name.startswith("_")} - {"annotations"}
    assert set(tools.__all__) == public
    assert tools.__all__ == sorted(tools.__all__)


def test_design_names_are_exported() -> None:
    assert {
        "BaseTool",
        "StructuredTool",
        "Tool",
        "tool",
        "ToolException",
        "convert_to_openai_tool",
        "render_text_description",
        "render_text_description_and_args",
    } <= set(tools.__all__)
    assert tools.ToolException is ToolException
