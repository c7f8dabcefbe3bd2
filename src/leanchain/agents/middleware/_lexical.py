"""A small BM25 ranking of tools against a query: names, descriptions and argument names.

No dependency and no model: words are cut at case changes, underscores and anything not a
letter or digit, lowercased, common English words dropped, and a few suffixes stripped
(``emails``, ``sending``, ``created`` meet ``email``, ``send``, ``create``). A tool's words are
its name (counted twice: a name says most), its description and its arguments' names and
descriptions. Scores are Okapi BM25 (k1 = 1.2, b = 0.75); ties keep the tools' order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final

__all__ = ["LexicalIndex", "words"]

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_STOP: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "get",
        "gets",
        "give",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "us",
        "use",
        "uses",
        "using",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
_K1: Final = 1.2
_B: Final = 0.75


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed", "er"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """The index words of `text`, in order."""
    return [
        _stem(w)
        for w in (m.lower() for m in _WORD.findall(text))
        if w not in _STOP and (len(w) > 1 or w.isdigit())
    ]


def tool_words(name: str, description: str, args: dict[str, Any]) -> list[str]:
    """A tool's index words: its name twice, its description, its arguments."""
    found = words(name) * 2 + words(description)
    for arg, schema in args.items():
        found += words(arg)
        if isinstance(schema, dict):
            found += words(str(schema.get("description") or ""))
    return found


class LexicalIndex:
    """BM25 over a fixed list of documents (lists of index words)."""

    __slots__ = ("_average", "_idf", "_lengths", "_terms")

    def __init__(self, documents: Sequence[Iterable[str]]) -> None:
        self._terms = [Counter(doc) for doc in documents]
        self._lengths = [sum(terms.values()) for terms in self._terms]
        count = len(self._terms)
        self._average = (sum(self._lengths) / count) if count else 0.0
        frequency: Counter[str] = Counter()
        for terms in self._terms:
            frequency.update(terms.keys())
        self._idf = {
            term: math.log(1 + (count - n + 0.5) / (n + 0.5)) for term, n in frequency.items()
        }

    def scores(self, query: str) -> list[float]:
        """Each document's score for `query` (0.0: no word in common)."""
        asked = Counter(words(query))
        average = self._average or 1.0
        result: list[float] = []
        for terms, length in zip(self._terms, self._lengths, strict=True):
            score = 0.0
            norm = _K1 * (1 - _B + _B * length / average)
            for term, times in asked.items():
                tf = terms.get(term)
                if tf:
                    score += times * self._idf[term] * tf * (_K1 + 1) / (tf + norm)
            result.append(score)
        return result

    def ranked(self, query: str) -> list[int]:
        """The documents' indexes, best first; equal scores keep their order."""
        scores = self.scores(query)
        return sorted(range(len(scores)), key=lambda i: -scores[i])
