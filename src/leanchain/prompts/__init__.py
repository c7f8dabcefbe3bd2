"""Prompt templates: text (`PromptTemplate`) and chat (`ChatPromptTemplate`) prompts.

Few-shot prompts (`FewShotPromptTemplate`, `FewShotChatMessagePromptTemplate`) show examples,
a fixed list or those an example selector (`LengthBasedExampleSelector`) picks for the input;
`format_document` formats a retrieved `Document`.

Templates use f-string syntax with plain variable names only: attribute access, indexing,
positional fields, all-digit names, conversions and nested format specs are rejected when a
template is built and again whenever it is formatted.
"""

from __future__ import annotations

from leanchain.prompts._base import BasePromptTemplate
from leanchain.prompts._blocks import BlocksTemplate
from leanchain.prompts._chat import ChatPromptTemplate, MessageLikeRepresentation
from leanchain.prompts._document import aformat_document, format_document
from leanchain.prompts._example_selectors import BaseExampleSelector, LengthBasedExampleSelector
from leanchain.prompts._few_shot import FewShotChatMessagePromptTemplate, FewShotPromptTemplate
from leanchain.prompts._message import (
    AIMessagePromptTemplate,
    BaseMessagePromptTemplate,
    BaseStringMessagePromptTemplate,
    ChatMessagePromptTemplate,
    HumanMessagePromptTemplate,
    MessagesPlaceholder,
    SystemMessagePromptTemplate,
)
from leanchain.prompts._string import PromptTemplate
from leanchain.prompts._template import format_template, get_template_variables
from leanchain.prompts._values import ChatPromptValue, PromptValue, StringPromptValue

__all__ = [
    "AIMessagePromptTemplate",
    "BaseExampleSelector",
    "BaseMessagePromptTemplate",
    "BasePromptTemplate",
    "BaseStringMessagePromptTemplate",
    "BlocksTemplate",
    "ChatMessagePromptTemplate",
    "ChatPromptTemplate",
    "ChatPromptValue",
    "FewShotChatMessagePromptTemplate",
    "FewShotPromptTemplate",
    "HumanMessagePromptTemplate",
    "LengthBasedExampleSelector",
    "MessageLikeRepresentation",
    "MessagesPlaceholder",
    "PromptTemplate",
    "PromptValue",
    "StringPromptValue",
    "SystemMessagePromptTemplate",
    "aformat_document",
    "format_document",
    "format_template",
    "get_template_variables",
]
