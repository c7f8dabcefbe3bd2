"""The runnable core: the `Runnable` protocol, its compositions, and `RunnableConfig`.

The names are imported on first use (module ``__getattr__``): a program that never draws a
graph, retries or branches does not import those modules.
"""

from __future__ import annotations

import typing as _typing

from leanchain._lazy import lazy_face as _lazy_face

_EXPORTS: dict[str, str] = {
    "chain": "leanchain.runnables._chain",
    "Runnable": "leanchain.runnables.base",
    "coerce_to_runnable": "leanchain.runnables.base",
    "ListenerRun": "leanchain.runnables.binding",
    "RunnableBinding": "leanchain.runnables.binding",
    "RunnableBranch": "leanchain.runnables.branch",
    "RunnableConfig": "leanchain.runnables.config",
    "ensure_config": "leanchain.runnables.config",
    "get_config": "leanchain.runnables.config",
    "patch_config": "leanchain.runnables.config",
    "ConfigurableField": "leanchain.runnables.configurable",
    "ConfigurableFieldMultiOption": "leanchain.runnables.configurable",
    "ConfigurableFieldSingleOption": "leanchain.runnables.configurable",
    "ConfigurableFieldSpec": "leanchain.runnables.configurable",
    "RunnableEach": "leanchain.runnables.each",
    "RunnableWithFallbacks": "leanchain.runnables.fallbacks",
    "Graph": "leanchain.runnables.graph",
    "RunnableGenerator": "leanchain.runnables.lambdas",
    "RunnableLambda": "leanchain.runnables.lambdas",
    "RunnableMap": "leanchain.runnables.parallel",
    "RunnableParallel": "leanchain.runnables.parallel",
    "RunnableAssign": "leanchain.runnables.passthrough",
    "RunnablePassthrough": "leanchain.runnables.passthrough",
    "RunnablePick": "leanchain.runnables.passthrough",
    "RunnableRetry": "leanchain.runnables.retry",
    "RunnableSequence": "leanchain.runnables.sequence",
    "AddableDict": "leanchain.runnables.utils",
}

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


__getattr__, __dir__ = _lazy_face(__name__, _EXPORTS)


if _typing.TYPE_CHECKING:
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
