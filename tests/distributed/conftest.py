"""One local Ray instance (2 CPUs) for the whole session, shared by the RayRunner tests."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = str(Path(__file__).parent)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """Ray started with 2 CPUs; workers can import this folder's support module."""
    ray: Any = importlib.import_module("ray")
    path = os.pathsep.join(p for p in (HERE, os.environ.get("PYTHONPATH")) if p)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path, "DRIVER_PID": str(os.getpid())}},
    )
    yield ray
    ray.shutdown()
