"""Config injection: tools see the caller's config, and runnables inside tools inherit it."""

from __future__ import annotations

from typing import Any

from tools_support import ToolRecorder

from leanchain.callbacks import CallbackManager, RunManager
from leanchain.runnables import RunnableConfig, RunnableLambda
from leanchain.tools import BaseTool, StructuredTool, Tool, tool


@tool
def where(x: int, config: RunnableConfig) -> dict[str, Any]:
    """Report the config."""
    return {"x": x, "tags": config.get("tags"), "metadata": config.get("metadata")}


def _tags(x: int, config: RunnableConfig) -> Any:
    return config.get("tags")


def test_config_parameter_is_injected_and_hidden_from_the_schema() -> None:
    assert where.args == {"x": {"title": "X", "type": "integer"}}
    config: RunnableConfig = {"tags": ["t1"], "metadata": {"k": "v"}}
    assert where.invoke({"x": 1}, config) == {"x": 1, "tags": ["t1"], "metadata": {"k": "v"}}


def test_config_is_never_none() -> None:
    # As LangChain: tags, metadata and configurable are there even when nobody set them.
    assert where.invoke({"x": 2}) == {"x": 2, "tags": [], "metadata": {}}


def test_config_parameter_found_by_type_under_another_name() -> None:
    def look(q: str, cfg: RunnableConfig) -> str:
        return f"{q}:{cfg['configurable']['user']}"

    t = StructuredTool.from_function(look, description="Look.")
    assert list(t.args) == ["q"]
    assert t.invoke({"q": "a"}, {"configurable": {"user": "ann"}}) == "a:ann"


def test_runnables_inside_a_tool_inherit_the_config() -> None:
    def report(x: int, config: RunnableConfig) -> Any:
        return x, config.get("tags"), config.get("configurable")

    inner: RunnableLambda[int, Any] = RunnableLambda(report)

    @tool
    def outer(x: int) -> Any:
        """Call a runnable without passing a config."""
        return inner.invoke(x)

    config: RunnableConfig = {"tags": ["outer"], "configurable": {"k": 1}}
    assert outer.invoke({"x": 3}, config) == (3, ["outer"], {"k": 1})


def test_tool_tags_and_metadata_are_added_to_the_run() -> None:
    t = StructuredTool.from_function(
        lambda config: (sorted(config["tags"]), config["metadata"]),
        name="t",
        description="T.",
        tags=["own"],
        metadata={"m": 1},
    )
    assert t.invoke({}, {"tags": ["caller"], "metadata": {"c": 2}}) == (
        ["caller", "own"],
        {"c": 2, "m": 1},
    )


def test_callbacks_and_run_manager_parameters() -> None:
    seen: list[Any] = []

    def spy(q: str, callbacks: Any = None, run_manager: RunManager | None = None) -> str:
        seen.append((callbacks, run_manager))
        return q

    t = StructuredTool.from_function(spy, description="Spy.")
    assert list(t.args) == ["q"]
    assert t.invoke({"q": "a"}) == "a"
    assert seen == [(None, None)]


def test_callbacks_parameter_gets_a_child_manager_when_traced() -> None:
    seen: list[Any] = []

    def spy(q: str, callbacks: Any, run_manager: RunManager | None) -> str:
        seen.append((callbacks, run_manager))
        return q

    recorder = ToolRecorder()
    StructuredTool.from_function(spy, description="Spy.").invoke(
        {"q": "a"}, {"callbacks": [recorder]}
    )
    ((callbacks, run_manager),) = seen
    assert isinstance(callbacks, CallbackManager)
    assert isinstance(run_manager, RunManager)
    assert callbacks.parent_run_id == run_manager.run_id == recorder.events[0].run_id


def test_simple_tool_gets_config_too() -> None:
    t = Tool("t", lambda s, config: f"{s}:{config['tags']}", "T.")
    assert t.invoke("a", {"tags": ["x"]}) == "a:['x']"


def test_subclass_run_gets_config() -> None:
    class Cfg(BaseTool):
        name: str = "cfg"
        description: str = "Cfg."

        def _run(self, q: str, config: RunnableConfig) -> str:
            return f"{q}:{config.get('tags')}"

    assert Cfg().invoke({"q": "a"}, {"tags": ["z"]}) == "a:['z']"
    assert Cfg().args == {"q": {"title": "Q", "type": "string"}}


async def test_async_tool_gets_config_and_context() -> None:
    inner: RunnableLambda[int, Any] = RunnableLambda(_tags)

    @tool
    async def aw(x: int, config: RunnableConfig) -> Any:
        """Async with config."""
        return config.get("tags"), await inner.ainvoke(x)

    assert await aw.ainvoke({"x": 1}, {"tags": ["a"]}) == (["a"], ["a"])


async def test_sync_tool_under_ainvoke_sees_the_config() -> None:
    inner: RunnableLambda[int, Any] = RunnableLambda(_tags)

    @tool
    def sy(x: int, config: RunnableConfig) -> Any:
        """Sync with config."""
        return config.get("tags"), inner.invoke(x)

    assert await sy.ainvoke({"x": 1}, {"tags": ["s"]}) == (["s"], ["s"])


def test_a_typed_config_argument_is_an_ordinary_argument() -> None:
    @tool
    def deploy(config: str) -> str:
        """Deploy a named configuration."""
        return f"deployed {config}"

    assert deploy.args == {"config": {"title": "Config", "type": "string"}}
    assert deploy.invoke({"config": "prod"}, {"tags": ["x"]}) == "deployed prod"


def test_optional_runnable_config_and_untyped_config_are_injected() -> None:
    def optional(q: str, config: RunnableConfig | None = None) -> Any:
        return config is not None and config.get("tags")

    def untyped(q: str, config=None) -> Any:  # type: ignore[no-untyped-def]
        return config is not None and config.get("tags")

    for func in (optional, untyped):
        t = StructuredTool.from_function(func, description="Cfg.")
        assert list(t.args) == ["q"]
        assert t.invoke({"q": "a"}, {"tags": ["y"]}) == ["y"]
