"""The package's public face."""

from __future__ import annotations

import leanchain.output_parsers
from leanchain.errors import OutputParserException


def test_all_lists_exactly_the_public_names() -> None:
    module = leanchain.output_parsers
    public = {
        name
        for name in dir(module)
        if not name.startswith("_")
        and name != "annotations"
        and type(getattr(module, name)).__name__ != "module"
    }
    assert sorted(module.__all__) == sorted(public)
    assert module.__all__ == sorted(module.__all__)


def test_design_names_are_exported() -> None:
    for name in [
        "BaseOutputParser",
        "StrOutputParser",
        "JsonOutputParser",
        "PydanticOutputParser",
        "JsonOutputToolsParser",
        "JsonOutputKeyToolsParser",
        "PydanticToolsParser",
        "ListOutputParser",
        "CommaSeparatedListOutputParser",
        "NumberedListOutputParser",
        "MarkdownListOutputParser",
        "SimpleJsonOutputParser",
    ]:
        assert name in leanchain.output_parsers.__all__
    assert leanchain.output_parsers.OutputParserException is OutputParserException
    assert (
        leanchain.output_parsers.SimpleJsonOutputParser is leanchain.output_parsers.JsonOutputParser
    )
