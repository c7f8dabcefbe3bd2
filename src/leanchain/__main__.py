"""``python -m leanchain``: the ``leanchain`` command line."""

from __future__ import annotations

from leanchain.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
