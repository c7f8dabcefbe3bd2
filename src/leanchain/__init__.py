"""leanchain: lean, fast, typed LLM pipelines and tool-using agents."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
