"""Lay out a fork tree for drawing as server-rendered SVG (no JavaScript needed).

Nodes come depth first from fork_tree, so each node gets its own row and its depth gives
the column; an edge goes from the parent's box to the child's, labelled with the cursor the
fork was made at.
"""

from __future__ import annotations

from dataclasses import dataclass

from actae.console.models import ForkNode

COLUMN = 200
ROW = 56
BOX_W = 176
BOX_H = 40
MARGIN = 12


@dataclass(frozen=True)
class Box:
    node: ForkNode
    x: int
    y: int
    label: str

    @property
    def css(self) -> str:
        classes = ["node"]
        if self.node.failed:
            classes.append("failed")
        if self.node.ambiguous:
            classes.append("ambiguous")
        if self.node.in_flight:
            classes.append("in-flight")
        return " ".join(classes)


@dataclass(frozen=True)
class Edge:
    x1: int
    y1: int
    x2: int
    y2: int
    label: str


@dataclass(frozen=True)
class Layout:
    boxes: list[Box]
    edges: list[Edge]
    width: int
    height: int


def _short(text: str, limit: int = 22) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def layout(nodes: list[ForkNode]) -> Layout:
    """Boxes and edges for the nodes (depth-first order, as fork_tree returns them)."""
    boxes: dict[str, Box] = {}
    for row, node in enumerate(nodes):
        boxes[node.channel_id] = Box(
            node=node,
            x=MARGIN + node.depth * COLUMN,
            y=MARGIN + row * ROW,
            label=_short(node.display_name or node.channel_id),
        )
    edges = []
    for box in boxes.values():
        parent = boxes.get(box.node.parent_channel_id or "")
        if parent is None:
            continue
        edges.append(Edge(
            x1=parent.x + 16, y1=parent.y + BOX_H,
            x2=box.x, y2=box.y + BOX_H // 2,
            label=f"@{box.node.fork_cursor}",
        ))
    depth = max((n.depth for n in nodes), default=0)
    return Layout(
        boxes=list(boxes.values()),
        edges=edges,
        width=2 * MARGIN + depth * COLUMN + BOX_W,
        height=2 * MARGIN + max(len(nodes), 1) * ROW,
    )
