"""The command line's own error: a problem the user can fix, reported in one line."""

from __future__ import annotations

__all__ = ["CliError"]


class CliError(Exception):
    """A problem the command line reports in one line (exit status 2), without a traceback."""
