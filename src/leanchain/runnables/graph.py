"""`Graph`: the nodes and edges of a pipeline, to inspect it, export it, or draw it.

A runnable's graph runs from a node for its input schema, through its parts, to a node for its
output schema. Sequences join their steps' graphs end to end; parallels fan out from one input
node and join at one output node. Drawing (Mermaid and plain text) lives in `_graph_draw`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple
from uuid import UUID, uuid4

from leanchain.runnables._graph_draw import CurveStyle, NodeStyles, draw_ascii, draw_mermaid

if TYPE_CHECKING:
    from leanchain.runnables.base import Runnable
    from leanchain.runnables.config import RunnableConfig
    from leanchain.runnables.parallel import RunnableParallel
    from leanchain.runnables.passthrough import RunnableAssign

__all__ = [
    "CurveStyle",
    "Edge",
    "Graph",
    "Node",
    "NodeStyles",
    "is_uuid",
    "node_data_json",
    "node_data_str",
]


class Node(NamedTuple):
    """One node of a graph: a runnable, a schema, or anything a user added."""

    id: str
    """Unique within the graph (a uuid hex unless the user chose one)."""
    name: str
    """The label shown in drawings."""
    data: Any
    """The runnable, the schema model class, or other data; may be ``None``."""
    metadata: dict[str, Any] | None
    """Extra facts shown under the label in Mermaid drawings."""

    def copy(self, *, id: str | None = None, name: str | None = None) -> Node:
        """This node with a new id and/or name."""
        return Node(
            id=id or self.id, name=name or self.name, data=self.data, metadata=self.metadata
        )


class Edge(NamedTuple):
    """A directed edge between two node ids."""

    source: str
    """The id of the node the edge leaves."""
    target: str
    """The id of the node the edge enters."""
    data: Any = None
    """A label for the edge (anything with a useful ``str``)."""
    conditional: bool = False
    """Whether the edge is taken only sometimes (drawn dotted)."""

    def copy(self, *, source: str | None = None, target: str | None = None) -> Edge:
        """This edge with a new source and/or target."""
        return Edge(
            source=source or self.source,
            target=target or self.target,
            data=self.data,
            conditional=self.conditional,
        )


def is_uuid(value: str) -> bool:
    """Whether `value` reads as a UUID (the ids the graph makes up itself)."""
    try:
        UUID(value)
    except ValueError:
        return False
    return True


def node_data_str(id: str, data: Any) -> str:
    """The label for a node: its runnable's or schema's name, less a ``Runnable`` prefix.

    A node whose id was chosen by the user is labelled by that id.
    """
    from leanchain.runnables.base import Runnable

    if data is None or not is_uuid(id):
        return id
    name = data.get_name() if isinstance(data, Runnable) else getattr(data, "__name__", str(data))
    return name[8:] if name.startswith("Runnable") else name


def node_data_json(node: Node, *, with_schemas: bool = False) -> dict[str, Any]:
    """A JSON-ready description of a node's data (with the JSON schema of schema nodes)."""
    from pydantic import BaseModel

    from leanchain.runnables.base import Runnable

    data = node.data
    result: dict[str, Any]
    if data is None:
        result = {}
    elif isinstance(data, Runnable):
        kind = type(data)
        result = {
            "type": "runnable",
            "data": {
                "id": [*kind.__module__.split("."), kind.__qualname__],
                "name": node_data_str(node.id, data),
            },
        }
    elif isinstance(data, type) and issubclass(data, BaseModel):
        schema = data.model_json_schema() if with_schemas else node_data_str(node.id, data)
        result = {"type": "schema", "data": schema}
    else:
        result = {"type": "unknown", "data": node_data_str(node.id, data)}
    if node.metadata is not None:
        result["metadata"] = node.metadata
    return result


def _first_node(graph: Graph, exclude: Sequence[str] = ()) -> Node | None:
    """The one node no edge enters (ignoring `exclude`), or ``None`` if not exactly one."""
    targets = {edge.target for edge in graph.edges if edge.source not in exclude}
    found = [n for n in graph.nodes.values() if n.id not in exclude and n.id not in targets]
    return found[0] if len(found) == 1 else None


def _last_node(graph: Graph, exclude: Sequence[str] = ()) -> Node | None:
    """The one node no edge leaves (ignoring `exclude`), or ``None`` if not exactly one."""
    sources = {edge.source for edge in graph.edges if edge.target not in exclude}
    found = [n for n in graph.nodes.values() if n.id not in exclude and n.id not in sources]
    return found[0] if len(found) == 1 else None


@dataclass
class Graph:
    """A directed graph of a pipeline's parts: nodes by id, and the edges between them."""

    nodes: dict[str, Node] = field(default_factory=dict)
    """Every node, by id, in the order they were added."""
    edges: list[Edge] = field(default_factory=list)
    """Every edge, in the order they were added."""

    def __bool__(self) -> bool:
        return bool(self.nodes)

    # -- building ---------------------------------------------------------------------------

    def add_node(
        self, data: Any, id: str | None = None, *, metadata: dict[str, Any] | None = None
    ) -> Node:
        """Add a node for `data` (a runnable, a schema, anything) and return it.

        Raises:
            ValueError: a node with this `id` exists already.
        """
        if id is not None and id in self.nodes:
            raise ValueError(f"Node with id {id} already exists")
        node_id = id or uuid4().hex
        node = Node(id=node_id, name=node_data_str(node_id, data), data=data, metadata=metadata)
        self.nodes[node_id] = node
        return node

    def remove_node(self, node: Node) -> None:
        """Remove a node and every edge that touches it."""
        del self.nodes[node.id]
        self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]

    def add_edge(
        self, source: Node, target: Node, data: Any = None, conditional: bool = False
    ) -> Edge:
        """Add an edge from `source` to `target` and return it.

        Raises:
            ValueError: either node is not in this graph.
        """
        if source.id not in self.nodes:
            raise ValueError(f"Source node {source.id} not in graph")
        if target.id not in self.nodes:
            raise ValueError(f"Target node {target.id} not in graph")
        edge = Edge(source=source.id, target=target.id, data=data, conditional=conditional)
        self.edges.append(edge)
        return edge

    def extend(self, graph: Graph, *, prefix: str = "") -> tuple[Node | None, Node | None]:
        """Add all of `graph`'s nodes and edges; return its first and last nodes, if any.

        Args:
            graph: the graph to copy in.
            prefix: put before user-chosen ids (``"{prefix}:{id}"``) to keep them apart; not
                used when every id is a generated uuid.
        """
        if all(is_uuid(node_id) for node_id in graph.nodes):
            prefix = ""

        def prefixed(node_id: str) -> str:
            return f"{prefix}:{node_id}" if prefix else node_id

        for node_id, node in graph.nodes.items():
            self.nodes[prefixed(node_id)] = node.copy(id=prefixed(node_id))
        self.edges.extend(
            e.copy(source=prefixed(e.source), target=prefixed(e.target)) for e in graph.edges
        )
        first, last = graph.first_node(), graph.last_node()
        return (
            first.copy(id=prefixed(first.id)) if first else None,
            last.copy(id=prefixed(last.id)) if last else None,
        )

    def first_node(self) -> Node | None:
        """The one node no edge enters (``None`` when there is not exactly one)."""
        return _first_node(self)

    def last_node(self) -> Node | None:
        """The one node no edge leaves (``None`` when there is not exactly one)."""
        return _last_node(self)

    def trim_first_node(self) -> None:
        """Remove the first node if the graph still has a single first node without it."""
        first = self.first_node()
        if first is not None and _first_node(self, exclude=[first.id]) is not None:
            self.remove_node(first)

    def trim_last_node(self) -> None:
        """Remove the last node if the graph still has a single last node without it."""
        last = self.last_node()
        if last is not None and _last_node(self, exclude=[last.id]) is not None:
            self.remove_node(last)

    def reid(self) -> Graph:
        """A copy whose generated ids are replaced by the node names (``Lambda_1`` for twins)."""
        ids_by_name: dict[str, list[str]] = defaultdict(list)
        for node in self.nodes.values():
            ids_by_name[node.name].append(node.id)
        labels = {
            node_id: name if len(ids) == 1 else f"{name}_{i + 1}"
            for name, ids in ids_by_name.items()
            for i, node_id in enumerate(ids)
        }

        def new_id(node_id: str) -> str:
            return labels[node_id] if is_uuid(node_id) else node_id

        return Graph(
            nodes={new_id(i): n.copy(id=new_id(i)) for i, n in self.nodes.items()},
            edges=[e.copy(source=new_id(e.source), target=new_id(e.target)) for e in self.edges],
        )

    # -- exporting and drawing --------------------------------------------------------------

    def to_json(self, *, with_schemas: bool = False) -> dict[str, list[dict[str, Any]]]:
        """The graph as plain data; generated ids become their position in `nodes`.

        Args:
            with_schemas: give schema nodes their full JSON schema instead of their name.
        """
        stable: dict[str, str | int] = {
            node_id: i if is_uuid(node_id) else node_id for i, node_id in enumerate(self.nodes)
        }
        edges: list[dict[str, Any]] = []
        for edge in self.edges:
            item: dict[str, Any] = {"source": stable[edge.source], "target": stable[edge.target]}
            if edge.data is not None:
                item["data"] = edge.data
            if edge.conditional:
                item["conditional"] = True
            edges.append(item)
        nodes = [
            {"id": stable[node.id], **node_data_json(node, with_schemas=with_schemas)}
            for node in self.nodes.values()
        ]
        return {"nodes": nodes, "edges": edges}

    def draw_mermaid(
        self,
        *,
        with_styles: bool = True,
        curve_style: CurveStyle | str = CurveStyle.LINEAR,
        node_colors: NodeStyles | None = None,
        wrap_label_n_words: int = 9,
        frontmatter_config: Mapping[str, Any] | None = None,
    ) -> str:
        """The graph as Mermaid flowchart text (``graph TD;``).

        Args:
            with_styles: include the front matter, node declarations and class styles.
            curve_style: the flowchart's edge curve (a `CurveStyle` or its value).
            node_colors: the styles of ordinary, first and last nodes.
            wrap_label_n_words: break edge labels after this many words.
            frontmatter_config: extra Mermaid front matter (merged under ``config``).
        """
        graph = self.reid()
        first, last = graph.first_node(), graph.last_node()
        return draw_mermaid(
            graph.nodes,
            graph.edges,
            first_node=first.id if first else None,
            last_node=last.id if last else None,
            with_styles=with_styles,
            curve_style=CurveStyle(curve_style),
            node_styles=node_colors,
            wrap_label_n_words=wrap_label_n_words,
            frontmatter_config=frontmatter_config,
        )

    def draw_ascii(self) -> str:
        """The graph as boxes and ``*`` edges in plain text, laid out top to bottom."""
        return draw_ascii({n.id: n.name for n in self.nodes.values()}, self.edges)

    def print_ascii(self) -> None:
        """Print `draw_ascii`."""
        print(self.draw_ascii())

    # -- the graphs of the core runnables ---------------------------------------------------

    @classmethod
    def of_single(cls, runnable: Runnable[Any, Any], config: RunnableConfig | None = None) -> Graph:
        """Input schema node → the runnable → output schema node."""
        graph = cls()
        input_node = graph.add_node(_schema(runnable, config, "Input"))
        metadata = config.get("metadata") if config else None
        node = graph.add_node(runnable, metadata=metadata)
        output_node = graph.add_node(_schema(runnable, config, "Output"))
        graph.add_edge(input_node, node)
        graph.add_edge(node, output_node)
        return graph

    @classmethod
    def of_sequence(
        cls, steps: Sequence[Runnable[Any, Any]], config: RunnableConfig | None
    ) -> Graph:
        """The steps' graphs end to end, without the schema nodes between steps."""
        graph = cls()
        last_index = len(steps) - 1
        for i, step in enumerate(steps):
            previous = graph.last_node()
            step_graph = step.get_graph(config)
            if i > 0:
                step_graph.trim_first_node()
            if i < last_index:
                step_graph.trim_last_node()
            first, _ = graph.extend(step_graph)
            if first is None:
                raise ValueError(f"Runnable {step!r} has no first node")
            if previous is not None:
                graph.add_edge(previous, first)
        return graph

    @classmethod
    def of_parallel(cls, parallel: RunnableParallel[Any], config: RunnableConfig | None) -> Graph:
        """A fan-out from the parallel's input schema node to its output schema node."""
        graph = cls()
        input_node = graph.add_node(parallel.get_input_schema(config))
        output_node = graph.add_node(parallel.get_output_schema(config))
        _fan(graph, input_node, output_node, parallel.steps__.values())
        return graph

    @classmethod
    def of_assign(cls, assign: RunnableAssign, config: RunnableConfig | None) -> Graph:
        """The mapper's graph, plus a ``Passthrough`` branch for the keys passed on."""
        from leanchain.runnables.passthrough import RunnablePassthrough

        graph = assign.mapper.get_graph(config)
        input_node, output_node = graph.first_node(), graph.last_node()
        if input_node is not None and output_node is not None:
            passthrough = graph.add_node(RunnablePassthrough())
            graph.add_edge(input_node, passthrough)
            graph.add_edge(passthrough, output_node)
        return graph


def _schema(runnable: Runnable[Any, Any], config: RunnableConfig | None, suffix: str) -> Any:
    """The runnable's input or output schema; a bare named model if it cannot build one."""
    from pydantic import PydanticUserError, create_model

    try:
        if suffix == "Input":
            return runnable.get_input_schema(config)
        return runnable.get_output_schema(config)
    except (TypeError, PydanticUserError):
        # A type pydantic cannot describe must not stop the drawing: the node keeps its name.
        return create_model(runnable.get_name(suffix))


def _fan(
    graph: Graph, input_node: Node, output_node: Node, branches: Iterable[Runnable[Any, Any]]
) -> None:
    """Add each branch's inner graph between `input_node` and `output_node`."""
    for branch in branches:
        branch_graph = branch.get_graph()
        branch_graph.trim_first_node()
        branch_graph.trim_last_node()
        if not branch_graph:
            graph.add_edge(input_node, output_node)
            continue
        first, last = graph.extend(branch_graph)
        if first is None or last is None:
            raise ValueError(f"Runnable {branch!r} has no single first and last node")
        graph.add_edge(input_node, first)
        graph.add_edge(last, output_node)
