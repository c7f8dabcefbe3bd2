#!/usr/bin/env sh
# Side-by-side benchmarks: creates .venv-bench once (leanchain + the pinned LangChain, LangGraph,
# pydantic-ai and OpenAI Agents SDK of benchmarks/requirements-compare.txt), runs the
# comparison there and writes benchmarks/results/latest.{json,md,png}. Arguments go to the
# runner (--only KEY, --out DIR, --no-png, --quick, --list).
set -eu
cd "$(dirname "$0")/../.."
exec "${PYTHON:-python3}" -m benchmarks.compare "$@"
