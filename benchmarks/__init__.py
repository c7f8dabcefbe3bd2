"""Benchmarks: each ``bench_*.py`` module has a ``main()`` that prints medians and ratios.

Run them all with ``python -m benchmarks`` (``make bench``), or some with
``python -m benchmarks core parts_tool``. ``LEANCHAIN_BENCH_QUICK=1`` runs few iterations.
"""
