"""The graph optimisation pipeline: every pass, in order, one line each.

Each pass runs on every function of the model: the main one and the If branches and Loop
bodies it runs (innermost first). Each pass runs when the requested opt level is at least
its own (levels as in TVM's Relay: FuseOps is level 0 but fuses nothing below level 1, so
every op becomes its own primitive function). Types are re-inferred after every pass.
When verification is on (under pytest, with AUTOTUNE_DEBUG set, or when asked), the
verifier runs after every pass and an error names the pass that broke the graph.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from ir.errors import AutotuneError, IRError
from ir.graph.nodes import Function
from ir.graph.passes.block_channels import block_channels
from ir.graph.passes.dead_code_elimination import dead_code_elimination
from ir.graph.passes.eliminate_common_subexpr import eliminate_common_subexpr
from ir.graph.passes.fold_constant import fold_constant
from ir.graph.passes.fuse_ops import fuse_ops
from ir.graph.passes.infer_type import infer_type
from ir.graph.passes.realize_quantized import DOT4, realize_quantized
from ir.graph.passes.simplify_inference import simplify_inference
from ir.graph.passes.verify import verify
from ir.graph.traversal import map_nested_functions

MAX_OPT_LEVEL = 3
FUSED_GROUP_SIZE = 256  # FuseOps' largest group at opt level 1 and above


@dataclass(frozen=True)
class Pass:
    """A named graph pass and the lowest opt level at which it runs."""

    name: str
    function: Callable[[Function], Function]
    opt_level: int


def passes(
    opt_level: int, blocked_layout: bool = True, integer_products: str = DOT4
) -> tuple[Pass, ...]:
    """The pipeline at `opt_level`, in order (passes above the level are listed but skipped).

    `blocked_layout` keeps convolution activations in NCHW[b]c (BlockChannels), which is
    what CPU code wants, and runs quantized convolutions as integer kernels
    (RealizeQuantized; `integer_products`: which int32 convs pay on the CPU, see
    `realize_quantized`); GPU schedules are written for NCHW float, so GPU targets turn
    both off.
    """
    max_group_size = FUSED_GROUP_SIZE if opt_level >= 1 else 1
    blocking = (Pass("BlockChannels", block_channels, opt_level=3),) if blocked_layout else ()
    realize = partial(realize_quantized, products=integer_products)
    integer = (Pass("RealizeQuantized", realize, opt_level=2),) if blocked_layout else ()
    return (
        Pass("InferType", infer_type, opt_level=0),
        Pass("SimplifyInference", simplify_inference, opt_level=0),
        *integer,
        Pass("FoldConstant", fold_constant, opt_level=2),
        Pass("EliminateCommonSubexpr", eliminate_common_subexpr, opt_level=3),
        Pass("DeadCodeElimination", dead_code_elimination, opt_level=1),
        *blocking,
        Pass("FuseOps", partial(fuse_ops, max_group_size=max_group_size), opt_level=0),
    )


def verification_enabled() -> bool:
    """Whether `optimize` verifies between passes by default: under pytest or AUTOTUNE_DEBUG."""
    return bool(os.environ.get("AUTOTUNE_DEBUG")) or "PYTEST_CURRENT_TEST" in os.environ


def optimize(
    fn: Function,
    opt_level: int = MAX_OPT_LEVEL,
    verify_passes: bool | None = None,
    blocked_layout: bool = True,
    integer_products: str = DOT4,
) -> Function:
    """Run every pass up to `opt_level` on `fn` and return the fused, typed function
    (`blocked_layout`, `integer_products`: see `passes`; blocked_layout False for GPU
    targets)."""
    pipeline = passes(opt_level, blocked_layout, integer_products)
    return _run(fn, pipeline, opt_level, verify_passes)


def optimize_without_fusion(
    fn: Function,
    opt_level: int = MAX_OPT_LEVEL,
    verify_passes: bool | None = None,
    blocked_layout: bool = True,
) -> Function:
    """Run every pass before FuseOps: the simplified graph that fusion would start from."""
    pipeline = passes(opt_level, blocked_layout)
    before_fusion = tuple(p for p in pipeline if p.name != "FuseOps")
    return _run(fn, before_fusion, opt_level, verify_passes)


def _run(
    fn: Function, pipeline: tuple[Pass, ...], opt_level: int, verify_passes: bool | None
) -> Function:
    if not 0 <= opt_level <= MAX_OPT_LEVEL:
        raise ValueError(f"opt_level must be in [0, {MAX_OPT_LEVEL}], got {opt_level}")
    checking = verification_enabled() if verify_passes is None else verify_passes
    if checking:
        _verify_after(fn, "the input graph is malformed", require_types=False)
    for graph_pass in pipeline:
        if graph_pass.opt_level > opt_level:
            continue
        try:
            fn = infer_type(_everywhere(graph_pass.function, fn))
        except AutotuneError as err:
            err.add_note(f"while running graph pass {graph_pass.name}")
            raise
        if checking:
            _verify_after(fn, f"pass {graph_pass.name} broke the graph")
    return fn


def _everywhere(graph_pass: Callable[[Function], Function], fn: Function) -> Function:
    """`graph_pass` applied to the functions `fn`'s control flow runs, then to `fn`: a
    branch or a loop body is optimised and fused as a function of its own, and nothing
    fuses across its boundary."""
    return graph_pass(map_nested_functions(fn, graph_pass))


def _verify_after(fn: Function, context: str, require_types: bool = True) -> None:
    try:
        verify(fn, require_types=require_types)
    except IRError as err:
        raise IRError(f"{context}: {err}") from err
