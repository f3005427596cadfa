"""`autotune inspect`: import a model, optimise it, and describe its fused functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ir.frontend.onnx import from_onnx
from ir.frontend.onnx.symbolic_dims import DimBinding
from ir.graph.nodes import Function
from ir.graph.passes.pipeline import optimize
from ir.graph.printer import print_expr
from ir.graph.summary import FusedFunctionSummary, fused_functions, graph_summary
from ir.graph.types import Type, type_to_json


@dataclass(frozen=True)
class Inspection:
    """What `autotune inspect` reports about one model."""

    model: str
    imported: dict[str, Any]
    optimized: Function
    fused: list[FusedFunctionSummary]
    opt_level: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (the `--json` output)."""
        return {
            "model": self.model,
            "opt_level": self.opt_level,
            "imported": self.imported,
            "optimized": {
                **graph_summary(self.optimized),
                "fused_functions": [f.to_json() for f in self.fused],
                "text": print_expr(self.optimized, show_types=False),
            },
        }


def inspect_model(
    path: Path, shapes: Mapping[str, Sequence[DimBinding]], opt_level: int = 3
) -> Inspection:
    """Import the ONNX model at `path` with bound `shapes` and optimise it at `opt_level`."""
    imported = from_onnx(path, shape=shapes or None)
    optimized = optimize(imported, opt_level=opt_level)
    return Inspection(
        model=str(path),
        imported=graph_summary(imported),
        optimized=optimized,
        fused=fused_functions(optimized),
        opt_level=opt_level,
    )


def _format_shape(entry: Mapping[str, Any]) -> str:
    if "dims" in entry:  # symbolic: the dims, then their upper bounds
        dims = "x".join(str(d) for d in entry["dims"])
        return f"{dims} {entry['dtype']} (at most {'x'.join(map(str, entry['shape']))})"
    if "shape" in entry:
        return f"{'x'.join(str(d) for d in entry['shape']) or 'scalar'} {entry['dtype']}"
    return str(entry)


def _output_text(ty: Type) -> str:
    """A fused function's output type as the tables print it."""
    entry = type_to_json(ty)
    return _format_shape(entry) if isinstance(entry, dict) and "dtype" in entry else str(ty)


def _format_flops(flops: int) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if flops >= scale:
            return f"{flops / scale:.2f} {unit}FLOP"
    return f"{flops} FLOP"


def render_inspection(report: Inspection, show_graph: bool = True) -> str:
    """The human-readable text of an inspection."""
    imported = report.imported
    lines = [f"model: {report.model}", "", "imported graph:"]
    for entry in imported["inputs"]:
        lines.append(f"  input  {entry['name']}: {_format_shape(entry)}")
    for index, entry in enumerate(imported["outputs"]):
        lines.append(f"  output {index}: {_format_shape(entry)}")
    ops = ", ".join(f"{name} x{count}" for name, count in imported["ops"].items())
    lines.append(f"  {imported['nodes']} op calls: {ops}")
    lines.append(
        f"  {imported['constants']} constants ({imported['constant_bytes'] / 2**20:.1f} MiB), "
        f"{_format_flops(imported['flops'])}"
    )
    if show_graph:
        lines += ["", f"optimised graph (opt level {report.opt_level}):", ""]
        lines.append(print_expr(report.optimized, show_types=False))
    total = sum(f.flops * f.calls for f in report.fused)
    lines += ["", f"fused functions: {len(report.fused)} distinct, {_format_flops(total)} in all"]
    width = max((len(f.name) for f in report.fused), default=4)
    shapes = [_output_text(fused.output_type) for fused in report.fused]
    shape_width = max((len(shape) for shape in shapes), default=6)
    lines.append(
        f"  {'#':>3}  {'function':<{width}}  {'calls':>5}  {'output':<{shape_width}}  "
        f"{'FLOPs':>14}  ops"
    )
    for index, (fused, shape) in enumerate(zip(report.fused, shapes, strict=True)):
        lines.append(
            f"  {index:>3}  {fused.name:<{width}}  {fused.calls:>5}  {shape:<{shape_width}}  "
            f"{_format_flops(fused.flops):>14}  {', '.join(fused.ops)}"
        )
    return "\n".join(lines)
