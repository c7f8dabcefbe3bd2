"""The graphs of runnables: structure, JSON, Mermaid text and plain-text drawings."""

from __future__ import annotations

from typing import Any

import pytest

from leanchain.runnables import (
    ConfigurableField,
    Graph,
    Runnable,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)
from leanchain.runnables.graph import CurveStyle, Edge, Node, NodeStyles, is_uuid


def add_one(x: int) -> int:
    return x + 1


def double(x: int) -> int:
    return x * 2


def three_steps() -> Runnable[Any, Any]:
    return RunnableLambda(lambda x: x) | add_one | RunnablePassthrough()


def with_parallel() -> Runnable[Any, Any]:
    return (
        RunnableLambda(add_one)
        | {"a": RunnableLambda(double), "b": RunnablePassthrough()}
        | RunnableLambda(lambda d: d["a"])
    )


FRONT = "---\nconfig:\n  flowchart:\n    curve: linear\n---\n"
CLASSES = (
    "\tclassDef default fill:#f2f0ff,line-height:1.2\n"
    "\tclassDef first fill-opacity:0\n"
    "\tclassDef last fill:#bfb6fc\n"
)

THREE_STEPS_EDGES = (
    "\tLambdaInput --> Lambda;\n"
    "\tLambda --> add_one;\n"
    "\tPassthrough --> PassthroughOutput;\n"
    "\tadd_one --> Passthrough;\n"
)

THREE_STEPS_ASCII = """\
   +-------------+
   | LambdaInput |
   +-------------+
          *
          *
          *
     +--------+
     | Lambda |
     +--------+
          *
          *
          *
     +---------+
     | add_one |
     +---------+
          *
          *
          *
   +-------------+
   | Passthrough |
   +-------------+
          *
          *
          *
+-------------------+
| PassthroughOutput |
+-------------------+"""

PARALLEL_EDGES = (
    "\tadd_one_input --> add_one;\n"
    "\tParallel\\3ca\\2cb\\3eInput --> double;\n"
    "\tdouble --> Parallel\\3ca\\2cb\\3eOutput;\n"
    "\tParallel\\3ca\\2cb\\3eInput --> Passthrough;\n"
    "\tPassthrough --> Parallel\\3ca\\2cb\\3eOutput;\n"
    "\tadd_one --> Parallel\\3ca\\2cb\\3eInput;\n"
    "\tLambda --> LambdaOutput;\n"
    "\tParallel\\3ca\\2cb\\3eOutput --> Lambda;\n"
)

PARALLEL_ASCII = """\
      +---------------+
      | add_one_input |
      +---------------+
              *
              *
              *
         +---------+
         | add_one |
         +---------+
              *
              *
              *
   +--------------------+
   | Parallel<a,b>Input |
   +--------------------+
            ****
        ****    ***
     ***           **
+--------+   +-------------+
| double |   | Passthrough |
+--------+   +-------------+
     ***           **
        ****    ***
            ****
   +---------------------+
   | Parallel<a,b>Output |
   +---------------------+
              *
              *
              *
         +--------+
         | Lambda |
         +--------+
              *
              *
              *
      +--------------+
      | LambdaOutput |
      +--------------+"""

ASSIGN_ASCII = """\
  +----------------------+
  | Parallel<total>Input |
  +----------------------+
            ****
        ****    ****
     ***            **
+---------+   +-------------+
| add_one |   | Passthrough |
+---------+   +-------------+
     ***            **
        ****    ****
            ****
  +-----------------------+
  | Parallel<total>Output |
  +-----------------------+"""


# -- structure --------------------------------------------------------------------------------


def test_single_runnable_is_input_runnable_output() -> None:
    graph = RunnableLambda(add_one).get_graph()
    assert [n.name for n in graph.nodes.values()] == ["add_one_input", "add_one", "add_one_output"]
    ids = list(graph.nodes)
    assert all(is_uuid(i) for i in ids)
    assert graph.edges == [Edge(ids[0], ids[1]), Edge(ids[1], ids[2])]
    first, last = graph.first_node(), graph.last_node()
    assert first is not None
    assert first.name == "add_one_input"
    assert last is not None
    assert last.name == "add_one_output"


def test_sequence_drops_the_schema_nodes_between_steps() -> None:
    graph = three_steps().get_graph()
    names = [n.name for n in graph.nodes.values()]
    assert names == ["LambdaInput", "Lambda", "add_one", "Passthrough", "PassthroughOutput"]
    by_id = {n.id: n.name for n in graph.nodes.values()}
    assert [(by_id[e.source], by_id[e.target]) for e in graph.edges] == [
        ("LambdaInput", "Lambda"),
        ("Lambda", "add_one"),
        ("Passthrough", "PassthroughOutput"),
        ("add_one", "Passthrough"),
    ]


def test_parallel_fans_out_and_joins() -> None:
    graph = RunnableParallel(a=add_one, b=double).get_graph()
    by_id = {n.id: n.name for n in graph.nodes.values()}
    assert list(by_id.values()) == [
        "Parallel<a,b>Input",
        "Parallel<a,b>Output",
        "add_one",
        "double",
    ]
    assert [(by_id[e.source], by_id[e.target]) for e in graph.edges] == [
        ("Parallel<a,b>Input", "add_one"),
        ("add_one", "Parallel<a,b>Output"),
        ("Parallel<a,b>Input", "double"),
        ("double", "Parallel<a,b>Output"),
    ]


def test_binding_and_configurable_show_the_runnable_they_run() -> None:
    assert [n.name for n in RunnableLambda(add_one).bind(x=1).get_graph().nodes.values()] == [
        "add_one_input",
        "add_one",
        "add_one_output",
    ]
    choice: Runnable[Any, Any] = RunnableLambda(add_one).configurable_alternatives(
        ConfigurableField(id="which"), other=RunnableLambda(double)
    )
    chosen = choice.get_graph({"configurable": {"which": "other"}})
    assert [n.name for n in chosen.nodes.values()] == ["double_input", "double", "double_output"]


def test_add_node_and_edge_errors() -> None:
    graph = Graph()
    a = graph.add_node(None, "a")
    assert a == Node(id="a", name="a", data=None, metadata=None)
    with pytest.raises(ValueError) as duplicate:
        graph.add_node(None, "a")
    assert str(duplicate.value) == "Node with id a already exists"
    ghost = Node(id="ghost", name="ghost", data=None, metadata=None)
    with pytest.raises(ValueError) as source:
        graph.add_edge(ghost, a)
    assert str(source.value) == "Source node ghost not in graph"
    with pytest.raises(ValueError) as target:
        graph.add_edge(a, ghost)
    assert str(target.value) == "Target node ghost not in graph"
    assert not Graph()
    assert graph


def test_trim_keeps_a_node_that_has_no_single_successor() -> None:
    graph = RunnableParallel(a=add_one, b=double).get_graph()
    graph.trim_first_node()
    graph.trim_last_node()
    assert len(graph.nodes) == 4
    single = RunnableLambda(add_one).get_graph()
    single.trim_first_node()
    single.trim_last_node()
    assert [n.name for n in single.nodes.values()] == ["add_one"]
    single.trim_first_node()
    single.trim_last_node()
    assert [n.name for n in single.nodes.values()] == ["add_one"]
    assert single.edges == []


def test_extend_prefixes_user_ids_only() -> None:
    inner = Graph()
    x, y = inner.add_node(None, "x"), inner.add_node(None, "y")
    inner.add_edge(x, y, data="go", conditional=True)
    outer = Graph()
    first, last = outer.extend(inner, prefix="sub")
    assert first == Node(id="sub:x", name="x", data=None, metadata=None)
    assert last == Node(id="sub:y", name="y", data=None, metadata=None)
    assert outer.edges == [Edge("sub:x", "sub:y", "go", True)]
    generated = RunnableLambda(add_one).get_graph()
    outer.extend(generated, prefix="ignored")
    assert list(outer.nodes)[2:] == list(generated.nodes)


def test_to_json_uses_positions_for_generated_ids() -> None:
    graph = three_steps().get_graph()
    assert graph.to_json() == {
        "nodes": [
            {"id": 0, "type": "schema", "data": "LambdaInput"},
            {
                "id": 1,
                "type": "runnable",
                "data": {
                    "id": ["leanchain", "runnables", "lambdas", "RunnableLambda"],
                    "name": "Lambda",
                },
            },
            {
                "id": 2,
                "type": "runnable",
                "data": {
                    "id": ["leanchain", "runnables", "lambdas", "RunnableLambda"],
                    "name": "add_one",
                },
            },
            {
                "id": 3,
                "type": "runnable",
                "data": {
                    "id": ["leanchain", "runnables", "passthrough", "RunnablePassthrough"],
                    "name": "Passthrough",
                },
            },
            {"id": 4, "type": "schema", "data": "PassthroughOutput"},
        ],
        "edges": [
            {"source": 0, "target": 1},
            {"source": 1, "target": 2},
            {"source": 3, "target": 4},
            {"source": 2, "target": 3},
        ],
    }
    schemas = RunnableLambda(add_one).get_graph().to_json(with_schemas=True)
    assert schemas["nodes"][0] == {
        "id": 0,
        "type": "schema",
        "data": {"title": "add_one_input", "type": "integer"},
    }


def test_to_json_keeps_user_ids_edge_data_and_metadata() -> None:
    graph = Graph()
    a = graph.add_node(None, "a", metadata={"k": 1})
    b = graph.add_node(42, "b")
    graph.add_edge(a, b, data="yes", conditional=True)
    assert graph.to_json() == {
        "nodes": [
            {"id": "a", "metadata": {"k": 1}},
            {"id": "b", "type": "unknown", "data": "b"},
        ],
        "edges": [{"source": "a", "target": "b", "data": "yes", "conditional": True}],
    }


# -- Mermaid ----------------------------------------------------------------------------------


def test_mermaid_three_step_chain() -> None:
    graph = three_steps().get_graph()
    assert graph.draw_mermaid() == (
        FRONT + "graph TD;\n"
        "\tLambdaInput([LambdaInput]):::first\n"
        "\tLambda(Lambda)\n"
        "\tadd_one(add_one)\n"
        "\tPassthrough(Passthrough)\n"
        "\tPassthroughOutput([PassthroughOutput]):::last\n" + THREE_STEPS_EDGES + CLASSES
    )
    assert graph.draw_mermaid(with_styles=False) == "graph TD;\n" + THREE_STEPS_EDGES


def test_mermaid_chain_with_parallel_escapes_ids() -> None:
    graph = with_parallel().get_graph()
    assert graph.draw_mermaid() == (
        FRONT + "graph TD;\n"
        "\tadd_one_input([add_one_input]):::first\n"
        "\tadd_one(add_one)\n"
        "\tParallel\\3ca\\2cb\\3eInput(Parallel<a,b>Input)\n"
        "\tParallel\\3ca\\2cb\\3eOutput(Parallel<a,b>Output)\n"
        "\tdouble(double)\n"
        "\tPassthrough(Passthrough)\n"
        "\tLambda(Lambda)\n"
        "\tLambdaOutput([LambdaOutput]):::last\n" + PARALLEL_EDGES + CLASSES
    )
    assert graph.draw_mermaid(with_styles=False) == "graph TD;\n" + PARALLEL_EDGES


def test_mermaid_assign_adds_a_passthrough_branch() -> None:
    graph = RunnablePassthrough.assign(total=add_one).get_graph()
    assert graph.draw_mermaid() == (
        FRONT + "graph TD;\n"
        "\tParallel\\3ctotal\\3eInput([Parallel<total>Input]):::first\n"
        "\tParallel\\3ctotal\\3eOutput([Parallel<total>Output]):::last\n"
        "\tadd_one(add_one)\n"
        "\tPassthrough(Passthrough)\n"
        "\tParallel\\3ctotal\\3eInput --> add_one;\n"
        "\tadd_one --> Parallel\\3ctotal\\3eOutput;\n"
        "\tParallel\\3ctotal\\3eInput --> Passthrough;\n"
        "\tPassthrough --> Parallel\\3ctotal\\3eOutput;\n" + CLASSES
    )


def test_mermaid_numbers_duplicate_names() -> None:
    chain: Runnable[Any, Any] = (
        RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    )
    assert chain.get_graph().draw_mermaid() == (
        FRONT + "graph TD;\n"
        "\tLambdaInput([LambdaInput]):::first\n"
        "\tLambda_1(Lambda)\n"
        "\tLambda_2(Lambda)\n"
        "\tLambda_3(Lambda)\n"
        "\tLambdaOutput([LambdaOutput]):::last\n"
        "\tLambdaInput --> Lambda_1;\n"
        "\tLambda_1 --> Lambda_2;\n"
        "\tLambda_3 --> LambdaOutput;\n"
        "\tLambda_2 --> Lambda_3;\n" + CLASSES
    )


def test_mermaid_options_labels_and_subgraphs() -> None:
    graph = Graph()
    start = graph.add_node(None, "start", metadata={"owner": "me"})
    inner_a = graph.add_node(None, "team:a")
    inner_b = graph.add_node(None, "team:b")
    end = graph.add_node(None, "_end_")
    graph.add_edge(start, inner_a, data="one two three", conditional=True)
    graph.add_edge(inner_a, inner_b)
    graph.add_edge(inner_b, end, data="x", conditional=False)
    graph.add_edge(start, end, conditional=True)
    text = graph.draw_mermaid(
        curve_style=CurveStyle.BASIS,
        node_colors=NodeStyles(default="fill:#fff"),
        wrap_label_n_words=2,
        frontmatter_config={"title": "My graph", "config": {"theme": "neutral"}},
    )
    assert text == (
        "---\n"
        "config:\n"
        "  flowchart:\n"
        "    curve: basis\n"
        "  theme: neutral\n"
        "title: My graph\n"
        "---\n"
        "graph TD;\n"
        "\tstart([start<hr/><small><em>owner = me</em></small>]):::first\n"
        "\t_end_([<p>_end_</p>]):::last\n"
        "\tstart -. &nbsp;one two&nbsp<br>&nbspthree&nbsp; .-> team\\3aa;\n"
        "\tteam\\3ab -- &nbsp;x&nbsp; --> _end_;\n"
        "\tstart -.-> _end_;\n"
        "\tsubgraph team\n"
        "\tteam\\3aa(a)\n"
        "\tteam\\3ab(b)\n"
        "\tteam\\3aa --> team\\3ab;\n"
        "\tend\n"
        "\tclassDef default fill:#fff\n"
        "\tclassDef first fill-opacity:0\n"
        "\tclassDef last fill:#bfb6fc\n"
    )
    assert graph.draw_mermaid(curve_style="stepAfter").startswith(
        "---\nconfig:\n  flowchart:\n    curve: stepAfter\n---\n"
    )
    with pytest.raises(ValueError) as bad_curve:
        graph.draw_mermaid(curve_style="wobbly")
    assert str(bad_curve.value) == "'wobbly' is not a valid CurveStyle"


def test_mermaid_frontmatter_quotes_what_yaml_would_misread() -> None:
    graph = RunnableLambda(add_one).get_graph()
    text = graph.draw_mermaid(
        frontmatter_config={"title": "a: b", "flag": True, "n": 2, "tags": ["x", "#y"], "e": {}}
    )
    assert text.split("graph TD;")[0] == (
        "---\n"
        "config:\n"
        "  flowchart:\n"
        "    curve: linear\n"
        "e: {}\n"
        "flag: true\n"
        "n: 2\n"
        "tags:\n"
        "- x\n"
        "- '#y'\n"
        "title: 'a: b'\n"
        "---\n"
    )


# -- plain text -------------------------------------------------------------------------------


def test_ascii_three_step_chain(capsys: pytest.CaptureFixture[str]) -> None:
    graph = three_steps().get_graph()
    assert graph.draw_ascii() == THREE_STEPS_ASCII
    graph.print_ascii()
    assert capsys.readouterr().out == THREE_STEPS_ASCII + "\n"


def test_ascii_chain_with_parallel() -> None:
    assert with_parallel().get_graph().draw_ascii() == PARALLEL_ASCII


def test_ascii_assign() -> None:
    assert RunnablePassthrough.assign(total=add_one).get_graph().draw_ascii() == ASSIGN_ASCII


def test_ascii_duplicate_names_are_drawn_by_name() -> None:
    chain: Runnable[Any, Any] = RunnableLambda(lambda x: x) | RunnableLambda(lambda x: x)
    assert chain.get_graph().draw_ascii() == (
        " +-------------+\n"
        " | LambdaInput |\n"
        " +-------------+\n"
        "        *\n"
        "        *\n"
        "        *\n"
        "   +--------+\n"
        "   | Lambda |\n"
        "   +--------+\n"
        "        *\n"
        "        *\n"
        "        *\n"
        "   +--------+\n"
        "   | Lambda |\n"
        "   +--------+\n"
        "        *\n"
        "        *\n"
        "        *\n"
        "+--------------+\n"
        "| LambdaOutput |\n"
        "+--------------+"
    )


def test_ascii_routes_long_edges_around_a_layer() -> None:
    graph = Graph()
    a, b, c = (graph.add_node(None, name) for name in ("a", "b", "c"))
    graph.add_edge(a, b)
    graph.add_edge(b, c)
    graph.add_edge(a, c)
    assert graph.draw_ascii() == (
        "  +---+\n"
        "  | a |\n"
        "  +---+\n"
        "    *\n"
        "   * **\n"
        "  *    **\n"
        "+---+   *\n"
        "| b |   *\n"
        "+---+   *\n"
        "  *     *\n"
        "   *  **\n"
        "    **\n"
        "  +---+\n"
        "  | c |\n"
        "  +---+"
    )


def test_ascii_edge_cases() -> None:
    assert Graph().draw_ascii() == ""
    lonely = Graph()
    lonely.add_node(None, "only")
    assert lonely.draw_ascii() == "+------+\n| only |\n+------+"
    loop = Graph()
    x, y = loop.add_node(None, "x"), loop.add_node(None, "y")
    loop.add_edge(x, y)
    loop.add_edge(y, x)
    loop.add_edge(x, x)
    assert loop.draw_ascii() == "+---+\n| x |\n+---+\n  *\n  *\n  *\n+---+\n| y |\n+---+"


class Blob:
    """A type pydantic cannot describe."""


def make_blob(x: int) -> Blob:
    return Blob()


class Opaque(Runnable[Any, Any]):
    """A runnable whose schemas cannot be built."""

    __slots__ = ()

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        return input

    def get_input_schema(self, config: Any = None) -> Any:
        raise TypeError("no schema")


def test_schema_nodes_fall_back_to_a_named_model() -> None:
    graph = RunnableLambda(make_blob).get_graph()
    assert [n.name for n in graph.nodes.values()] == [
        "make_blob_input",
        "make_blob",
        "make_blob_output",
    ]
    assert [n.name for n in Opaque().get_graph().nodes.values()] == [
        "OpaqueInput",
        "Opaque",
        "OpaqueOutput",
    ]
