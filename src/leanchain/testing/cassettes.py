"""Reading a cassette file outside a test: its entries, and the messages of each request.

What ``leanchain replay`` builds on. A cassette is written and replayed with `cassette`
(`leanchain.testing`); its JSON format is described in docs/testing.md.
"""

from __future__ import annotations

from leanchain.testing._cassette import load_entries
from leanchain.testing._cassette_format import message_from_data

__all__ = ["load_entries", "message_from_data"]
