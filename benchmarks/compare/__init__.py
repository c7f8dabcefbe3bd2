"""leanchain side by side with LangChain, the other agent libraries and plain Python, in one run.

Each workload is written once, in `spec`, and implemented once per column: in plain Python
(`plain`, the lower bound), with leanchain (`lean`), with LangChain (`lang`: langchain-core,
langchain-classic and langchain-openai), and, for the agent workloads, with the agent peers:
LangChain 1.x ``create_agent`` on LangGraph (`peer_create_agent`), pydantic-ai
(`peer_pydantic_ai`) and the OpenAI Agents SDK (`peer_openai_agents`). The runner measures the
columns in the same rounds, interleaved, and reports medians and the ratios of each round's
pair (issues 9 and 21).

Run ``python -m benchmarks.compare`` (``benchmarks/compare/run.sh``): it creates ``.venv-bench``
with leanchain and the pinned versions of ``benchmarks/requirements-compare.txt``, runs the
comparison there and writes ``benchmarks/results/latest.{json,md,png}``.
``LEANCHAIN_BENCH_QUICK=1`` makes every measurement tiny (for smoke tests; the numbers then
mean nothing).
"""
