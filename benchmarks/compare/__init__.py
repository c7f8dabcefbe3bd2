"""leanchain side by side with LangChain and with plain Python, in one run (issue 9).

Each workload is written once, in `workloads`, and implemented three times: in plain Python
(`plain`, the lower bound), with leanchain (`lean`) and with LangChain (`lang`: langchain-core,
langchain-classic and langchain-openai). The runner measures the three in the same rounds,
interleaved, and reports medians and the ratios of each round's pair.

Run ``python -m benchmarks.compare`` (``benchmarks/compare/run.sh``): it creates ``.venv-bench``
with leanchain and the pinned versions of ``benchmarks/requirements-compare.txt``, runs the
comparison there and writes ``benchmarks/results/latest.{json,md,png}``.
``LEANCHAIN_BENCH_QUICK=1`` makes every measurement tiny (for smoke tests; the numbers then
mean nothing).
"""
