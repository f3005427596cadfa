"""FuseOps: group ops into primitive functions using the post-dominator tree (as in Relay).

Rules, by the op's fusion pattern:
- an out-elemwise-fusable op (conv2d, dense, pooling) absorbs the elementwise/broadcast
  ops up to its post-dominator when every edge keeps its output's shape (this takes in a
  folded batch-norm, a residual add and the activation after it);
- elementwise/broadcast ops fuse forward into an injective or reduction post-dominator;
- a reduction absorbs the elementwise consumers of its full output in the same way;
- injective ops (reshape, transpose, concatenate, ...) fuse with injective post-dominators.
A group's ops are inlined into one loop nest, so an op with several consumers in the group
is computed once per consumer; groups that would compute their ops more than
MAX_RECOMPUTE times over in all are not formed (chains of gathers with fan-out, as an
unrolled tree walk makes, would otherwise recompute exponentially), nor groups that
would compute more than once a gather (take, gather_elements) whose indices come from
another gather: pointer chasing, each step a dependent load (a resize's gathers at
computed positions may repeat).
Each group becomes a Function marked primitive, called from the main function. Constants
with one element are inlined into the group; larger constants become parameters, so the
same operator in two models is the same function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ir.graph.attrs import Attrs
from ir.graph.nodes import Call, Constant, Expr, Function, Tuple, Var
from ir.graph.ops.registry import OpPattern, get_op
from ir.graph.passes.infer_type import infer_type
from ir.graph.traversal import post_order, with_children

MAX_NAME_OPS = 6  # ops named in a fused function's name before it is abbreviated
# A fused group evaluates its ops, inlined, at most this many times their number (and a
# few dozen evaluations are always allowed): x * sigmoid(x) computes x twice, a GELU
# three times; a chain where each step's result feeds several ops of the next does not fuse.
MAX_RECOMPUTE = 4
MIN_EVALUATIONS = 64
GATHERS = frozenset({"take", "gather_elements"})  # (data, indices, ...)


@dataclass
class _GraphNode:
    """A fusible node of the dataflow graph, with its consumers and their patterns."""

    index: int
    expr: Expr
    pattern: OpPattern
    outputs: list[tuple[int, OpPattern]] = field(default_factory=list)
    extern_ref: bool = False


@dataclass
class _DomNode:
    parent: _DomNode | None
    depth: int
    pattern: OpPattern  # combined pattern of the edges up to the post-dominator


@dataclass
class _Group:
    pattern: OpPattern
    num_nodes: int = 1
    parent: _Group | None = None
    members: list[int] = field(default_factory=list)  # node indices, while a root

    def root(self) -> _Group:
        group = self
        while group.parent is not None:
            group = group.parent
        # Path compression keeps later lookups short.
        node = self
        while node.parent is not None and node.parent is not group:
            node.parent, node = group, node.parent
        return group


def _pattern_of(expr: Expr) -> OpPattern:
    if isinstance(expr, Call) and isinstance(expr.op, str):
        return get_op(expr.op).pattern
    return OpPattern.OPAQUE


def _is_fusible(expr: Expr) -> bool:
    return isinstance(expr, Call) and isinstance(expr.op, str)


def _edge_pattern(producer: Expr, consumer: Expr) -> OpPattern:
    """The consumer's pattern, except that a broadcast reading a full-shape input is elementwise."""
    pattern = _pattern_of(consumer)
    if (
        pattern == OpPattern.BROADCAST
        and producer.has_type
        and consumer.has_type
        and producer.checked_type == consumer.checked_type
    ):
        return OpPattern.ELEMWISE
    return pattern


def _build_graph(body: Expr) -> list[_GraphNode]:
    """Step 1. Index the op nodes in post order and record their consumers."""
    nodes: list[_GraphNode] = []
    index: dict[int, int] = {}
    for expr in post_order(body):
        if isinstance(expr, Var | Constant):
            continue
        node = _GraphNode(len(nodes), expr, _pattern_of(expr))
        index[id(expr)] = node.index
        nodes.append(node)
        for child in expr.children():
            if id(child) in index:
                nodes[index[id(child)]].outputs.append((node.index, _edge_pattern(child, expr)))
    nodes[index[id(body)]].extern_ref = True
    if isinstance(body, Tuple):
        for fld in body.fields:
            if id(fld) in index:
                nodes[index[id(fld)]].extern_ref = True
    for node in nodes:
        if not _is_fusible(node.expr):
            # Tuples and projections stay in the main function; what feeds them is an output.
            for child in node.expr.children():
                if id(child) in index:
                    nodes[index[id(child)]].extern_ref = True
    return nodes


def _post_dominators(nodes: list[_GraphNode]) -> list[_DomNode]:
    """Step 2. The post-dominator tree, built from the outputs backwards."""
    tree: list[_DomNode | None] = [None] * len(nodes)

    def lca(
        lhs: _DomNode | None, rhs: _DomNode | None, pattern: OpPattern
    ) -> tuple[_DomNode | None, OpPattern]:
        while lhs is not rhs:
            if lhs is None or rhs is None:
                return None, pattern
            if lhs.depth < rhs.depth:
                pattern, rhs = max(pattern, rhs.pattern), rhs.parent
            elif rhs.depth < lhs.depth:
                pattern, lhs = max(pattern, lhs.pattern), lhs.parent
            else:
                pattern = max(pattern, lhs.pattern, rhs.pattern)
                lhs, rhs = lhs.parent, rhs.parent
        return lhs, pattern

    for node in reversed(nodes):
        if node.extern_ref or not node.outputs:
            tree[node.index] = _DomNode(None, 1, OpPattern.OPAQUE)
            continue
        pattern = OpPattern.ELEMWISE
        first, edge_pattern = node.outputs[0]
        parent: _DomNode | None = tree[first]
        pattern = max(pattern, edge_pattern)
        for consumer, edge_pattern in node.outputs[1:]:
            parent, pattern = lca(parent, tree[consumer], pattern)
            pattern = max(pattern, edge_pattern)
        depth = parent.depth + 1 if parent is not None else 1
        tree[node.index] = _DomNode(parent, depth, pattern)
    return [dom for dom in tree if dom is not None]


def _chased_gathers(nodes: list[_GraphNode]) -> set[int]:
    """The gathers (node indices) whose indices are computed from another gather's
    result, anywhere upstream."""
    index_of = {id(node.expr): node.index for node in nodes}
    gathered = [False] * len(nodes)  # whether a node's value depends on a gather
    chased: set[int] = set()
    for node in nodes:  # (post order: producers first)
        if isinstance(node.expr, Call) and node.expr.op in GATHERS:
            indices = index_of.get(id(node.expr.args[1]))
            if indices is not None and gathered[indices]:
                chased.add(node.index)
            gathered[node.index] = True
        else:
            producers = (index_of.get(id(child)) for child in node.expr.children())
            gathered[node.index] = any(gathered[i] for i in producers if i is not None)
    return chased


class _Fuser:
    """Step 3. Union groups along post-dominator paths, phase by phase."""

    def __init__(self, nodes: list[_GraphNode], max_group_size: int) -> None:
        self.nodes = nodes
        self.max_group_size = max_group_size
        self.groups = [_Group(node.pattern, members=[node.index]) for node in nodes]
        self.dom = _post_dominators(nodes)
        self.dom_index = {id(dom): i for i, dom in enumerate(self.dom)}
        self.chased = _chased_gathers(nodes)

    def check_path(self, src: int, sink: int, cond: Callable[[OpPattern, bool], bool]) -> bool:
        visited: set[int] = set()
        groups_on_path: dict[int, _Group] = {}
        stack = [consumer for consumer, _ in self.nodes[src].outputs]
        while stack:
            current = stack.pop()
            if current in visited:
                continue
            visited.add(current)
            group = self.groups[current].root()
            groups_on_path[id(group)] = group
            if not cond(group.pattern, current == sink):
                return False
            if current != sink:
                stack.extend(consumer for consumer, _ in self.nodes[current].outputs)
        groups_on_path[id(self.groups[src].root())] = self.groups[src].root()
        size = sum(group.num_nodes for group in groups_on_path.values())
        if size > self.max_group_size:
            return False
        members = [index for group in groups_on_path.values() for index in group.members]
        counts = self.evaluations(members)
        if any(counts[index] > 1 for index in members if index in self.chased):
            return False
        return sum(counts.values()) <= max(MAX_RECOMPUTE * len(members), MIN_EVALUATIONS)

    def evaluations(self, members: list[int]) -> dict[int, int]:
        """How many times a group of `members` (node indices) evaluates each of its ops
        when each is inlined into its consumers in the group: once per use, transitively."""
        counts: dict[int, int] = {}
        for index in sorted(members, reverse=True):  # consumers come later in post order
            uses = sum(counts.get(consumer, 0) for consumer, _ in self.nodes[index].outputs)
            counts[index] = uses or 1  # the group's output: once
        return counts

    def commit(self, src: int, sink: int) -> None:
        target = self.groups[sink].root()
        visited: set[int] = set()
        stack = [src]
        while stack:
            current = stack.pop()
            if current in visited or current == sink:
                continue
            visited.add(current)
            self.merge(self.groups[current], target)
            stack.extend(consumer for consumer, _ in self.nodes[current].outputs)

    @staticmethod
    def merge(child: _Group, parent: _Group) -> None:
        child, parent = child.root(), parent.root()
        if child is parent:
            return
        parent.num_nodes += child.num_nodes
        parent.pattern = max(parent.pattern, child.pattern)
        parent.members.extend(child.members)
        child.members = []
        child.parent = parent

    def run_phase(self, phase: int) -> None:
        for index, node in enumerate(self.nodes):
            group = self.groups[index].root()
            dom = self.dom[index]
            if not _is_fusible(node.expr) or group.pattern == OpPattern.OPAQUE:
                continue
            if dom.parent is None:
                continue
            sink = self.dom_index[id(dom.parent)]
            if not _is_fusible(self.nodes[sink].expr):
                continue
            if self.groups[sink].root() is group:
                continue
            pattern = self.groups[index].pattern
            condition: Callable[[OpPattern, bool], bool] | None = None
            if pattern in (OpPattern.OUT_ELEMWISE_FUSABLE, OpPattern.COMM_REDUCE):
                if phase == 0 and dom.pattern == OpPattern.ELEMWISE:
                    condition = _elementwise_path
            elif pattern <= OpPattern.BROADCAST:
                if dom.pattern <= OpPattern.INJECTIVE or dom.pattern == OpPattern.COMM_REDUCE:
                    condition = _into_injective_or_reduce
            elif (
                pattern == OpPattern.INJECTIVE and phase == 1 and dom.pattern <= OpPattern.INJECTIVE
            ):
                condition = _injective_path
            if condition is not None and self.check_path(index, sink, condition):
                self.commit(index, sink)


def _elementwise_path(kind: OpPattern, is_sink: bool) -> bool:
    return kind <= OpPattern.BROADCAST


def _injective_path(kind: OpPattern, is_sink: bool) -> bool:
    return kind <= OpPattern.INJECTIVE


def _into_injective_or_reduce(kind: OpPattern, is_sink: bool) -> bool:
    if not is_sink:
        return kind <= OpPattern.INJECTIVE
    return kind <= OpPattern.COMM_REDUCE or kind == OpPattern.OUT_ELEMWISE_FUSABLE


def _fused_name(members: list[Expr]) -> str:
    names = [m.op for m in members if isinstance(m, Call) and isinstance(m.op, str)]
    shown = names[:MAX_NAME_OPS]
    suffix = f"_and_{len(names) - len(shown)}_more" if len(names) > len(shown) else ""
    return "fused_" + "_".join(name.replace(".", "_") for name in shown) + suffix


def _build_function(members: list[Expr]) -> tuple[Function, list[Expr], list[Expr]]:
    """Step 4. Turn a group into a primitive function; returns it, its args and its outputs."""
    member_ids = {id(m) for m in members}
    params: list[Var] = []
    args: list[Expr] = []
    mapping: dict[int, Expr] = {}
    for member in members:
        for child in member.children():
            if id(child) in member_ids or id(child) in mapping:
                continue
            if isinstance(child, Constant) and child.data.size == 1:
                mapping[id(child)] = child
                continue
            param = Var(f"p{len(params)}", child.checked_type)
            params.append(param)
            args.append(child)
            mapping[id(child)] = param
    for member in members:
        children = tuple(mapping[id(child)] for child in member.children())
        mapping[id(member)] = with_children(member, children)
    return Function(tuple(params), mapping[id(members[-1])]), args, members


def fuse_ops(fn: Function, max_group_size: int = 256) -> Function:
    """Group the ops of a typed function into primitive functions (see the module doc).

    `max_group_size=1` puts every op in its own function (what opt level 0 does).
    """
    if isinstance(fn.body, Var | Constant):
        return fn
    nodes = _build_graph(fn.body)
    fuser = _Fuser(nodes, max(1, max_group_size))
    if max_group_size > 1:
        for phase in (0, 1):
            fuser.run_phase(phase)
    # Step 5. Collect members per group (post order) and rebuild the main function.
    members_by_group: dict[int, list[Expr]] = {}
    for node in nodes:
        if _is_fusible(node.expr):
            members_by_group.setdefault(id(fuser.groups[node.index].root()), []).append(node.expr)
    group_of: dict[int, int] = {}
    for key, members in members_by_group.items():
        for member in members:
            group_of[id(member)] = key
    consumers_outside = _outputs_used_outside(fn.body, group_of)
    replaced: dict[int, Expr] = {}
    for expr in post_order(fn.body):
        if isinstance(expr, Var | Constant):
            replaced[id(expr)] = expr
        elif id(expr) in group_of:
            key = group_of[id(expr)]
            members = members_by_group[key]
            if expr is not members[-1]:
                continue  # built when the group's last member is reached
            _check_single_output(members, consumers_outside, fn.body)
            function, args, _ = _build_function(members)
            function = replace(
                function, attrs=Attrs({"primitive": 1, "name": _fused_name(members)})
            )
            new_args = tuple(replaced[id(arg)] for arg in args)
            replaced[id(expr)] = Call(function, new_args, ty=expr.checked_type)
        else:
            children = tuple(replaced[id(child)] for child in expr.children())
            replaced[id(expr)] = with_children(expr, children)
    return infer_type(replace(fn, body=replaced[id(fn.body)]))


def _outputs_used_outside(body: Expr, group_of: dict[int, int]) -> set[int]:
    used: set[int] = {id(body)}
    for expr in post_order(body):
        for child in expr.children():
            if id(child) in group_of and group_of.get(id(expr)) != group_of[id(child)]:
                used.add(id(child))
    return used


def _check_single_output(members: list[Expr], used_outside: set[int], body: Expr) -> None:
    outputs = [m for m in members if id(m) in used_outside]
    if len(outputs) != 1 or outputs[0] is not members[-1]:
        names = ", ".join(m.op_name if isinstance(m, Call) else type(m).__name__ for m in outputs)
        raise AssertionError(f"fused group has outputs [{names}]; expected only its last op")
