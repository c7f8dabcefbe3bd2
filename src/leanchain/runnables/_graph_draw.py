"""Drawing graphs: Mermaid flowchart text, and plain-text boxes without any extra dependency.

The text drawing is a small layered layout: nodes go into layers by their longest path from a
source, long edges pass through one-column waypoints, each layer is ordered by where its
parents sit and centred on one column, and edges are rasterised as ``*`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from leanchain.runnables.graph import Edge, Node

__all__ = ["CurveStyle", "NodeStyles", "draw_ascii", "draw_mermaid"]


class CurveStyle(StrEnum):
    """How Mermaid draws edges (its ``flowchart.curve`` setting)."""

    BASIS = "basis"
    BUMP_X = "bumpX"
    BUMP_Y = "bumpY"
    CARDINAL = "cardinal"
    CATMULL_ROM = "catmullRom"
    LINEAR = "linear"
    MONOTONE_X = "monotoneX"
    MONOTONE_Y = "monotoneY"
    NATURAL = "natural"
    STEP = "step"
    STEP_AFTER = "stepAfter"
    STEP_BEFORE = "stepBefore"


@dataclass
class NodeStyles:
    """Mermaid class styles for ordinary, first and last nodes."""

    default: str = "fill:#f2f0ff,line-height:1.2"
    """Every node."""
    first: str = "fill-opacity:0"
    """The graph's entry node."""
    last: str = "fill:#bfb6fc"
    """The graph's exit node."""


_MARKDOWN_SPECIAL = ("*", "_", "`")
_SAFE_ID = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _safe_id(label: str) -> str:
    """A Mermaid node id: other characters become ``\\`` + hex code point (``<`` → ``\\3c``)."""
    return "".join(ch if ch in _SAFE_ID else f"\\{ord(ch):x}" for ch in label)


# -- a tiny YAML writer for the front matter (block style, sorted keys, as PyYAML writes) -----

_PLAIN = re.compile(r"[A-Za-z_./][A-Za-z0-9_./ -]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"})


def _yaml_scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and not text.endswith(" ") and text.lower() not in _YAML_WORDS:
        return text
    return "'" + text.replace("'", "''") + "'"


def _yaml_lines(value: Any, indent: str) -> list[str]:
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key in sorted(value):
            item = value[key]
            if isinstance(item, Mapping) and item:
                lines.append(f"{indent}{key}:")
                lines.extend(_yaml_lines(item, indent + "  "))
            elif isinstance(item, list | tuple) and item:
                lines.append(f"{indent}{key}:")
                lines.extend(_yaml_lines(item, indent))
            else:
                lines.append(f"{indent}{key}: {_yaml_block_or_scalar(item)}")
    else:
        for item in value:
            if isinstance(item, Mapping) and item:
                inner = _yaml_lines(item, indent + "  ")
                lines.append(f"{indent}- {inner[0].lstrip()}")
                lines.extend(inner[1:])
            else:
                lines.append(f"{indent}- {_yaml_block_or_scalar(item)}")
    return lines


def _yaml_block_or_scalar(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list | tuple):
        return "[]"
    return _yaml_scalar(value)


def _yaml(value: Mapping[str, Any]) -> str:
    if not value:
        return "{}\n"
    return "".join(line + "\n" for line in _yaml_lines(value, ""))


# -- Mermaid ----------------------------------------------------------------------------------


def draw_mermaid(
    nodes: Mapping[str, Node],
    edges: Sequence[Edge],
    *,
    first_node: str | None = None,
    last_node: str | None = None,
    with_styles: bool = True,
    curve_style: CurveStyle = CurveStyle.LINEAR,
    node_styles: NodeStyles | None = None,
    wrap_label_n_words: int = 9,
    frontmatter_config: Mapping[str, Any] | None = None,
) -> str:
    """Mermaid flowchart text for these nodes (ids already readable) and edges.

    Node ids with ``:`` belong to the subgraph named by their prefix.
    """
    parts: list[str] = []
    if with_styles:
        front = dict(frontmatter_config or {})
        config = dict(front.get("config", {}))
        config["flowchart"] = {**config.get("flowchart", {}), "curve": curve_style.value}
        front["config"] = config
        parts.append("---\n" + _yaml(front) + "---\n")
    parts.append("graph TD;\n")

    sub_nodes: dict[str, dict[str, Node]] = {}
    top_nodes: dict[str, Node] = {}
    for key, node in nodes.items():
        if ":" in key:
            sub_nodes.setdefault(key.rsplit(":", 1)[0], {})[key] = node
        else:
            top_nodes[key] = node
    formats = {first_node: "{0}([{1}]):::first", last_node: "{0}([{1}]):::last"}

    def render_node(key: str, node: Node) -> str:
        name = node.name.split(":")[-1]
        label = (
            f"<p>{name}</p>"
            if name.startswith(_MARKDOWN_SPECIAL) and name.endswith(_MARKDOWN_SPECIAL)
            else name
        )
        if node.metadata:
            facts = "\n".join(f"{k} = {v}" for k, v in node.metadata.items())
            label = f"{label}<hr/><small><em>{facts}</em></small>"
        return "\t" + formats.get(key, "{0}({1})").format(_safe_id(key), label) + "\n"

    if with_styles:
        parts.extend(render_node(key, node) for key, node in top_nodes.items())

    edge_groups: dict[str, list[Edge]] = {}
    for edge in edges:
        pairs = zip(edge.source.split(":"), edge.target.split(":"), strict=False)
        common = ":".join(s for s, t in pairs if s == t)
        edge_groups.setdefault(common, []).append(edge)
    seen: set[str] = set()

    def render_edge(edge: Edge) -> str:
        if edge.data is None:
            arrow = " -.-> " if edge.conditional else " --> "
        else:
            words = str(edge.data).split()
            text = str(edge.data)
            if len(words) > wrap_label_n_words:
                text = "&nbsp<br>&nbsp".join(
                    " ".join(words[i : i + wrap_label_n_words])
                    for i in range(0, len(words), wrap_label_n_words)
                )
            arrow = (
                f" -. &nbsp;{text}&nbsp; .-> "
                if edge.conditional
                else f" -- &nbsp;{text}&nbsp; --> "
            )
        return f"\t{_safe_id(edge.source)}{arrow}{_safe_id(edge.target)};\n"

    def add_subgraph(group: list[Edge], prefix: str) -> None:
        self_loop = len(group) == 1 and group[0].source == group[0].target
        opens = bool(prefix) and not self_loop
        if opens:
            name = prefix.split(":")[-1]
            if name in seen:
                raise ValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that you're "
                    "reusing a subgraph node with the same name. Please adjust your graph "
                    "to have subgraph nodes with unique names."
                )
            seen.add(name)
            parts.append(f"\tsubgraph {name}\n")
            if with_styles:
                parts.extend(render_node(k, n) for k, n in sub_nodes.get(prefix, {}).items())
        parts.extend(render_edge(edge) for edge in group)
        for nested, nested_group in edge_groups.items():
            if not nested.startswith(prefix + ":") or nested == prefix:
                continue
            if ":" in nested[len(prefix) + 1 :]:
                continue
            add_subgraph(nested_group, nested)
        if opens:
            parts.append("\tend\n")

    add_subgraph(edge_groups.get("", []), "")
    for prefix, group in edge_groups.items():
        if not prefix or ":" in prefix or prefix in seen:
            continue
        add_subgraph(group, prefix)
        seen.add(prefix)
    if with_styles:
        for prefix, members in sub_nodes.items():
            if ":" not in prefix and prefix not in seen:
                parts.append(f"\tsubgraph {prefix}\n")
                parts.extend(render_node(k, n) for k, n in members.items())
                parts.append("\tend\n")
                seen.add(prefix)
        styles = asdict(node_styles or NodeStyles())
        parts.extend(f"\tclassDef {name} {style}\n" for name, style in styles.items())
    return "".join(parts)


# -- plain text -------------------------------------------------------------------------------

_GAP_ROWS = 3
"""Rows of ``*`` between two layers of boxes."""
_GAP_COLUMNS = 3
"""Blank columns between neighbours in a layer."""
_BOX_ROWS = 3


def _round_div(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` rounded half away from zero (`denominator` > 0).

    Rounding away from zero both ways keeps lines that fan out left and right mirror images.
    """
    quotient = (2 * abs(numerator) + denominator) // (2 * denominator)
    return quotient if numerator >= 0 else -quotient


def _acyclic(order: list[str], edges: Sequence[Edge]) -> list[tuple[str, str]]:
    """The distinct edges, without self-loops, with back edges turned around (DFS order)."""
    pairs = list(dict.fromkeys((e.source, e.target) for e in edges if e.source != e.target))
    out: dict[str, list[str]] = {node: [] for node in order}
    for source, target in pairs:
        out[source].append(target)
    state: dict[str, int] = {}
    back: set[tuple[str, str]] = set()
    for root in order:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(out[child])))
    turned = [(t, s) if (s, t) in back else (s, t) for s, t in pairs]
    return list(dict.fromkeys(turned))


def _layers(order: list[str], pairs: list[tuple[str, str]]) -> dict[str, int]:
    """Each node's layer: the length of the longest path reaching it."""
    preds: dict[str, list[str]] = {node: [] for node in order}
    for source, target in pairs:
        preds[target].append(source)
    layer: dict[str, int] = {}

    def depth(node: str) -> int:
        stack = [node]
        while stack:
            top = stack[-1]
            pending = [p for p in preds[top] if p not in layer]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            layer[top] = max((layer[p] + 1 for p in preds[top]), default=0)
        return layer[node]

    for node in order:
        if node not in layer:
            depth(node)
    return layer


def draw_ascii(vertices: Mapping[str, str], edges: Sequence[Edge]) -> str:
    """Boxes for `vertices` (id → label) joined by ``*`` lines for `edges`, top to bottom."""
    order = list(vertices)
    if not order:
        return ""
    pairs = _acyclic(order, edges)
    layer_of = _layers(order, pairs)
    width: dict[str, int] = {node: len(vertices[node]) + 4 for node in order}
    rank: dict[str, int] = {node: i for i, node in enumerate(order)}
    layer_of_all = dict(layer_of)
    segments: list[tuple[str, str]] = []
    for source, target in pairs:
        previous = source
        for step in range(layer_of[source] + 1, layer_of[target]):
            waypoint = f"\0{len(rank)}"
            rank[waypoint], width[waypoint], layer_of_all[waypoint] = len(rank), 1, step
            segments.append((previous, waypoint))
            previous = waypoint
        segments.append((previous, target))
    depth = max(layer_of_all.values()) + 1
    layers: list[list[str]] = [[] for _ in range(depth)]
    for node in rank:
        layers[layer_of_all[node]].append(node)
    parents: dict[str, list[str]] = {node: [] for node in rank}
    for source, target in segments:
        parents[target].append(source)
    position: dict[str, int] = {}
    for members in layers:
        members.sort(
            key=lambda n: (
                sum(position[p] for p in parents[n]) / len(parents[n]) if parents[n] else -1.0,
                rank[n],
            )
        )
        position.update((node, i) for i, node in enumerate(members))
    totals = [sum(width[n] for n in m) + _GAP_COLUMNS * (len(m) - 1) for m in layers]
    centre = max(total // 2 for total in totals)
    left: dict[str, int] = {}
    for members, total in zip(layers, totals, strict=True):
        x = centre - total // 2
        for node in members:
            left[node] = x
            x += width[node] + _GAP_COLUMNS
    canvas_width = max(left[n] + width[n] for n in rank)
    rows = [[" "] * canvas_width for _ in range(depth * (_BOX_ROWS + _GAP_ROWS) - _GAP_ROWS)]

    def top(node: str) -> int:
        return layer_of_all[node] * (_BOX_ROWS + _GAP_ROWS)

    def mid(node: str) -> int:
        return left[node] + width[node] // 2

    for source, target in segments:
        _line(rows, mid(source), top(source) + _BOX_ROWS, mid(target), top(target) - 1)
    for node in rank:
        x, y = left[node], top(node)
        if node.startswith("\0"):
            for row in range(y, y + _BOX_ROWS):
                rows[row][x] = "*"
            continue
        border = "+" + "-" * (width[node] - 2) + "+"
        rows[y][x : x + width[node]] = border
        rows[y + 1][x : x + width[node]] = f"| {vertices[node]} |"
        rows[y + 2][x : x + width[node]] = border
    return "\n".join("".join(row).rstrip() for row in rows)


def _line(rows: list[list[str]], x0: int, y0: int, x1: int, y1: int) -> None:
    """Rasterise a ``*`` line from ``(x0, y0)`` down to ``(x1, y1)`` (``y1 >= y0``)."""
    dx, dy = x1 - x0, y1 - y0
    if abs(dx) <= dy:
        for y in range(y0, y1 + 1):
            rows[y][x0 + _round_div(dx * (y - y0), dy)] = "*"
        return
    step = 1 if dx > 0 else -1
    for x in range(x0, x1 + step, step):
        rows[y0 + _round_div(dy * (x - x0) * step, abs(dx))][x] = "*"
