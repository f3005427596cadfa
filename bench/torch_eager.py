"""An ONNX graph run by PyTorch eager, op by op: the "PyTorch eager" baseline of a model
that exists only as ONNX (the light models have no PyTorch source).

`TorchEagerModel(model, device)` turns initializers into tensors on `device`, computes
every node whose inputs are all constant once (as a PyTorch module holds its weights), and
then runs the rest node by node with `torch.nn.functional`, as a hand-written PyTorch
module of the same graph would. It covers the ops of the nine light models and of
torchvision's ResNet and MobileNetV2 exports; any other op is a ValueError naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper


def _attrs(node: onnx.NodeProto) -> dict[str, Any]:
    return {attr.name: onnx.helper.get_attribute_value(attr) for attr in node.attribute}


def _pads_2d(attrs: Mapping[str, Any]) -> tuple[int, int, int, int] | None:
    """ONNX 2-D pads (top, left, bottom, right) as F.pad's (left, right, top, bottom)."""
    pads = list(attrs.get("pads", [0, 0, 0, 0]))
    if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise ValueError(f"auto_pad {attrs['auto_pad']!r} is not supported")
    return pads[1], pads[3], pads[0], pads[2]


def _symmetric(pads: tuple[int, int, int, int]) -> tuple[int, int] | None:
    left, right, top, bottom = pads
    return (top, left) if (left, top) == (right, bottom) else None


def _op_table(torch: Any) -> dict[str, Callable[..., Any]]:
    functional = torch.nn.functional

    def conv(attrs: dict[str, Any], x: Any, w: Any, b: Any = None) -> Any:
        pads = _pads_2d(attrs)
        assert pads is not None
        same = _symmetric(pads)
        if same is None:
            x, same = functional.pad(x, pads), (0, 0)
        return functional.conv2d(
            x,
            w,
            b,
            tuple(attrs.get("strides", (1, 1))),
            same,
            tuple(attrs.get("dilations", (1, 1))),
            int(attrs.get("group", 1)),
        )

    def pool(kind: str) -> Callable[..., Any]:
        def run(attrs: dict[str, Any], x: Any) -> Any:
            pads = _pads_2d(attrs)
            assert pads is not None
            same = _symmetric(pads)
            kernel, strides = tuple(attrs["kernel_shape"]), tuple(attrs.get("strides", (1, 1)))
            ceil = bool(attrs.get("ceil_mode", 0))
            if kind == "max":
                if same is None:
                    x, same = functional.pad(x, pads, value=float("-inf")), (0, 0)
                return functional.max_pool2d(x, kernel, strides, same, ceil_mode=ceil)
            include = bool(attrs.get("count_include_pad", 0))
            if same is not None:
                return functional.avg_pool2d(x, kernel, strides, same, ceil, include)
            # Asymmetric pads: pad explicitly, then divide by the count of real elements.
            total = functional.avg_pool2d(functional.pad(x, pads), kernel, strides, 0, ceil, True)
            if include:
                return total
            ones = functional.pad(torch.ones_like(x[:, :1]), pads)
            return total / functional.avg_pool2d(ones, kernel, strides, 0, ceil, True)

        return run

    def gemm(attrs: dict[str, Any], a: Any, b: Any, c: Any = None) -> Any:
        a = a.t() if attrs.get("transA", 0) else a
        b = b.t() if attrs.get("transB", 0) else b
        out = float(attrs.get("alpha", 1.0)) * (a @ b)
        return out if c is None else out + float(attrs.get("beta", 1.0)) * c

    def batch_norm(
        attrs: dict[str, Any], x: Any, scale: Any, bias: Any, mean: Any, var: Any
    ) -> Any:
        return functional.batch_norm(
            x, mean, var, scale, bias, False, 0.0, attrs.get("epsilon", 1e-5)
        )

    def lrn(attrs: dict[str, Any], x: Any) -> Any:
        return functional.local_response_norm(
            x,
            int(attrs["size"]),
            attrs.get("alpha", 1e-4),
            attrs.get("beta", 0.75),
            attrs.get("bias", 1.0),
        )

    def clip(attrs: dict[str, Any], x: Any, low: Any = None, high: Any = None) -> Any:
        low = attrs.get("min", low if low is None else float(low))
        high = attrs.get("max", high if high is None else float(high))
        return torch.clamp(x, low, high)

    def reshape(attrs: dict[str, Any], x: Any, shape: Any) -> Any:
        dims = [int(d) for d in shape.tolist()]
        dims = [
            x.shape[i] if d == 0 and not attrs.get("allowzero") else d for i, d in enumerate(dims)
        ]
        return x.reshape(dims)

    def unsqueeze(attrs: dict[str, Any], x: Any, axes: Any = None) -> Any:
        axes_list = sorted(int(a) for a in (attrs["axes"] if axes is None else axes.tolist()))
        for axis in axes_list:
            x = x.unsqueeze(axis if axis >= 0 else axis + x.dim() + 1)
        return x

    def flatten(attrs: dict[str, Any], x: Any) -> Any:
        axis = int(attrs.get("axis", 1))
        axis += x.dim() if axis < 0 else 0
        return x.reshape(int(np.prod(x.shape[:axis])), -1)

    def gather(attrs: dict[str, Any], x: Any, indices: Any) -> Any:
        axis = int(attrs.get("axis", 0))
        picked = torch.index_select(x, axis, indices.reshape(-1) % x.shape[axis])
        return picked.reshape([*x.shape[:axis], *indices.shape, *x.shape[axis + 1 :]])

    def constant_of_shape(attrs: dict[str, Any], shape: Any) -> Any:
        value = attrs.get("value")
        fill = numpy_helper.to_array(value).reshape(-1)[0] if value is not None else 0.0
        return torch.full([int(d) for d in shape.tolist()], float(fill))

    return {
        "Conv": conv,
        "Relu": lambda attrs, x: torch.relu(x),
        "MaxPool": pool("max"),
        "AveragePool": pool("avg"),
        "GlobalAveragePool": lambda attrs, x: x.mean(dim=(2, 3), keepdim=True),
        "BatchNormalization": batch_norm,
        "Gemm": gemm,
        "MatMul": lambda attrs, a, b: a @ b,
        "Add": lambda attrs, a, b: a + b,
        "Mul": lambda attrs, a, b: a * b,
        "Sum": lambda attrs, *xs: sum(xs[1:], xs[0]),
        "Concat": lambda attrs, *xs: torch.cat(xs, dim=int(attrs["axis"])),
        "Flatten": flatten,
        "Reshape": reshape,
        "Transpose": lambda attrs, x: x.permute(*attrs["perm"]),
        "Unsqueeze": unsqueeze,
        "Softmax": lambda attrs, x: torch.softmax(x, dim=int(attrs.get("axis", -1))),
        "Dropout": lambda attrs, x, *rest: x,
        "Identity": lambda attrs, x: x,
        "LRN": lrn,
        "Clip": clip,
        "ConstantOfShape": constant_of_shape,
        "Shape": lambda attrs, x: torch.tensor(list(x.shape), dtype=torch.int64),
        "Gather": gather,
    }


class TorchEagerModel:
    """The ONNX `model` as PyTorch eager code on `device` (module docstring)."""

    def __init__(self, model: onnx.ModelProto, device: str = "cuda") -> None:
        import torch

        self.torch = torch
        self.device = device
        table = _op_table(torch)
        graph = model.graph
        values: dict[str, Any] = {
            init.name: torch.from_numpy(numpy_helper.to_array(init).copy())
            for init in graph.initializer
        }
        self.inputs = [value.name for value in graph.input if value.name not in values]
        self.outputs = [value.name for value in graph.output]
        self.steps: list[tuple[Callable[..., Any], dict[str, Any], list[str], list[str]]] = []
        for node in graph.node:
            if node.op_type == "Constant":
                values[node.output[0]] = torch.from_numpy(
                    numpy_helper.to_array(node.attribute[0].t).copy()
                )
                continue
            if node.op_type not in table:
                raise ValueError(
                    f"{node.op_type} (node {node.name!r}) has no PyTorch eager form here"
                )
            step = (table[node.op_type], _attrs(node), list(node.input), list(node.output))
            if all(name == "" or name in values for name in node.input):
                self._run_step(step, values)  # constant: computed once, as a weight would be
            else:
                self.steps.append(step)
        self.constants = {
            name: tensor.to(device) if tensor.is_floating_point() else tensor
            for name, tensor in values.items()
        }

    def _run_step(
        self,
        step: tuple[Callable[..., Any], dict[str, Any], list[str], list[str]],
        values: dict[str, Any],
    ) -> None:
        fn, attrs, inputs, outputs = step
        args = [values[name] if name else None for name in inputs]
        while args and args[-1] is None:
            args.pop()
        result = fn(attrs, *args)
        values[outputs[0]] = result

    def run(self, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The graph's outputs for the numpy `feeds`: inputs copied to the device, every
        node run, outputs copied back (the same span as an artifact's run)."""
        torch = self.torch
        with torch.no_grad():
            values = dict(self.constants)
            for name in self.inputs:
                values[name] = torch.from_numpy(np.ascontiguousarray(feeds[name])).to(self.device)
            for step in self.steps:
                self._run_step(step, values)
            return [values[name].cpu().numpy() for name in self.outputs]
