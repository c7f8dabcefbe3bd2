"""``python -m benchmarks [name ...]``: run every ``bench_*`` module, or the named ones."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def available() -> list[str]:
    """The benchmark module names without their ``bench_`` prefix, sorted."""
    here = Path(__file__).parent
    return sorted(
        info.name.removeprefix("bench_")
        for info in pkgutil.iter_modules([str(here)])
        if info.name.startswith("bench_")
    )


def main(argv: list[str]) -> int:
    """Run the chosen benchmarks; a name may be a prefix (``parts`` runs ``parts_*``)."""
    names = available()
    chosen = [n for n in names if not argv or any(n == a or n.startswith(a) for a in argv)]
    unknown = [a for a in argv if not any(n == a or n.startswith(a) for n in names)]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(names)}")
        return 2
    for name in chosen:
        print(f"== {name} ==", flush=True)
        importlib.import_module(f"benchmarks.bench_{name}").main()
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
