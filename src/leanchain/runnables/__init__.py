"""The runnable core: the `Runnable` protocol, its compositions, and `RunnableConfig`."""

from __future__ import annotations

from leanchain.runnables._chain import chain
from leanchain.runnables.base import Runnable, coerce_to_runnable
from leanchain.runnables.binding import ListenerRun, RunnableBinding
from leanchain.runnables.branch import RunnableBranch
from leanchain.runnables.config import RunnableConfig, ensure_config, get_config, patch_config
from leanchain.runnables.configurable import (
    ConfigurableField,
    ConfigurableFieldMultiOption,
    ConfigurableFieldSingleOption,
    ConfigurableFieldSpec,
)
from leanchain.runnables.each import RunnableEach
from leanchain.runnables.fallbacks import RunnableWithFallbacks
from leanchain.runnables.graph import Graph
from leanchain.runnables.lambdas import RunnableGenerator, RunnableLambda
from leanchain.runnables.parallel import RunnableMap, RunnableParallel
from leanchain.runnables.passthrough import RunnableAssign, RunnablePassthrough, RunnablePick
from leanchain.runnables.retry import RunnableRetry
from leanchain.runnables.sequence import RunnableSequence
from leanchain.runnables.utils import AddableDict

__all__ = [
    "AddableDict",
    "ConfigurableField",
    "ConfigurableFieldMultiOption",
    "ConfigurableFieldSingleOption",
    "ConfigurableFieldSpec",
    "Graph",
    "ListenerRun",
    "Runnable",
    "RunnableAssign",
    "RunnableBinding",
    "RunnableBranch",
    "RunnableConfig",
    "RunnableEach",
    "RunnableGenerator",
    "RunnableLambda",
    "RunnableMap",
    "RunnableParallel",
    "RunnablePassthrough",
    "RunnablePick",
    "RunnableRetry",
    "RunnableSequence",
    "RunnableWithFallbacks",
    "chain",
    "coerce_to_runnable",
    "ensure_config",
    "get_config",
    "patch_config",
]
