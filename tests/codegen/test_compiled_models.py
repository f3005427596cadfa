"""The nine light models compiled with default schedules and run, end to end.

Each model gets seeded random weights (the shipped ones give every class the same score)
and is cut at its pre-softmax logits. `autotune run` (the installed console script, in a
subprocess) compiles and runs the written model on an .npy input, and its `output_0`
must match onnxruntime on the same file. For squeezenet and resnet50 the compiled model
is also run one fused function at a time, and every kernel's output is compared with the
numpy reference of its primitive function on the same arguments.
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest

from codegen.executor import CompiledModel, compile_model
from ir.frontend.onnx import from_onnx
from ir.graph.nodes import Call, Constant, Function, Tuple, TupleGetItem
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import post_order
from ir.reference import check_close, evaluate
from tests.support.cli import autotune_script
from tests.support.onnx_models import (
    LIGHT_MODELS,
    cut_at_logits,
    load_light_model,
    logits_name,
    randomize_weights,
    run_onnxruntime,
    runtime_inputs,
)

RTOL, ATOL = 1e-3, 1e-4
# One fused function against its reference: the float32 defaults, with the absolute
# tolerance scaled by the output's largest magnitude. A conv sums up to 4608 products in
# another order than numpy does; where those cancel to nearly zero, the rounding error
# (~1e-6 of the terms' size) is far above rtol x |result|. Activations reach ~1e4 here.
KERNEL_RTOL, KERNEL_ATOL = 1e-4, 1e-5
AUTOTUNE = Path(autotune_script())
CLI_TIMEOUT_S = 300


@cache
def truncated_model(name: str) -> onnx.ModelProto:
    """The light model `name` with random weights (seeded by its name), ending at its logits."""
    model = randomize_weights(load_light_model(name), seed=sum(map(ord, name)))
    result = cut_at_logits(model, shapes_from=load_light_model(name))
    # densenet121 ends at its classifier conv, without a softmax.
    if any(node.op_type == "Softmax" for node in model.graph.node):
        assert len(result.graph.node) < len(model.graph.node), f"{name}: the softmax was kept"
    onnx.checker.check_model(result)
    return result


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_autotune_run_matches_onnxruntime(name: str, tmp_path: Path) -> None:
    model = truncated_model(name)
    model_path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(model_path))
    (input_name, value), *others = runtime_inputs(model).items()
    assert not others, f"{name}: expected one model input"
    input_path, output_path = tmp_path / "input.npy", tmp_path / "out.npz"
    np.save(input_path, value)
    completed = subprocess.run(
        [
            str(AUTOTUNE),
            "run",
            str(model_path),
            "--input",
            f"{input_name}={input_path}",
            "--output",
            str(output_path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )
    assert completed.returncode == 0, f"exit {completed.returncode}: {completed.stderr[-3000:]}"
    assert "output 0:" in completed.stdout
    saved = onnx.load(str(model_path))
    inputs = {input_name: np.load(input_path)}
    expected = run_onnxruntime(saved, inputs, logits_name(saved), threads=2)
    with np.load(output_path) as outputs:
        assert list(outputs.keys()) == ["output_0"]
        actual = outputs["output_0"]
    assert actual.dtype == expected.dtype
    check_close(actual, expected, RTOL, ATOL, what=f"{name} logits")
    assert np.std(expected) > 1e-3, "random weights must give distinguishable logits"


# --- every fused function's kernel against its reference ---------------------------------


def _constant_params(node: Call) -> frozenset[str]:
    return frozenset(f"p{i}" for i, arg in enumerate(node.args) if isinstance(arg, Constant))


def _kernel_arguments(model: CompiledModel, node: Call, args: list[np.ndarray]) -> list[Any]:
    """The arrays the executor passes for `node`: constants in their schedule's layout."""
    assert isinstance(node.op, Function)
    _, schedule = model.kernel_of(node.op, _constant_params(node))
    arrays = []
    for index, array in enumerate(args):
        layout = schedule.input_layouts.get(f"p{index}")
        if layout is not None:
            assert isinstance(node.args[index], Constant)
            array = layout.apply(array)
        arrays.append(np.require(array, requirements=["C", "W"]))
    return arrays


def run_step_by_step(model: CompiledModel, inputs: dict[str, np.ndarray]) -> tuple[Any, int]:
    """Run each fused call's kernel and check it against the reference of its function.

    Returns the model's result and the number of kernel calls checked.
    """
    fn = model.function
    values: dict[int, Any] = {id(param): inputs[param.name] for param in fn.params}
    checked = 0
    for node in post_order(fn.body):
        if id(node) in values:
            continue
        if isinstance(node, Constant):
            values[id(node)] = node.data
        elif isinstance(node, Tuple):
            values[id(node)] = tuple(values[id(field)] for field in node.fields)
        elif isinstance(node, TupleGetItem):
            values[id(node)] = values[id(node.tuple_value)][node.index]
        else:
            assert isinstance(node, Call) and isinstance(node.op, Function), node
            prim = node.op
            args = [values[id(arg)] for arg in node.args]
            expected = evaluate(prim, {p.name: a for p, a in zip(prim.params, args, strict=True)})
            wanted = list(expected) if isinstance(expected, tuple) else [expected]
            outputs = [np.empty(want.shape, want.dtype) for want in wanted]
            kernel, _ = model.kernel_of(prim, _constant_params(node))
            kernel(*_kernel_arguments(model, node, args), *outputs)
            for index, (got, want) in enumerate(zip(outputs, wanted, strict=True)):
                scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
                check_close(
                    got,
                    want,
                    KERNEL_RTOL,
                    KERNEL_ATOL * scale,
                    what=f"{prim.attrs.get('name')} output {index} (call {checked})",
                )
            values[id(node)] = tuple(outputs) if isinstance(expected, tuple) else outputs[0]
            checked += 1
    return values[id(fn.body)], checked


@pytest.mark.parametrize("name", ["light_squeezenet", "light_resnet50"])
def test_every_fused_kernel_matches_its_reference(name: str) -> None:
    model = truncated_model(name)
    inputs = runtime_inputs(model)
    compiled = compile_model(optimize(from_onnx(model)))
    # What the executor allocates (weights, repacked weights, intermediates, outputs) is
    # 64-byte aligned, as in the artifact and in measurement; only the inputs are the
    # caller's.
    names = {param.name for param in compiled.function.params}
    held = [
        array
        for call in compiled.bind(inputs).calls
        for array in call.arrays
        if array.size and not any(array is inputs[name] for name in names)
    ]
    assert held and all(array.ctypes.data % 64 == 0 for array in held)
    result, checked = run_step_by_step(compiled, inputs)
    calls = [n for n in post_order(compiled.function.body) if isinstance(n, Call)]
    assert checked == len(calls) > compiled.num_kernels > 10
    # The executor, run whole, computes what the checked kernels computed one by one.
    check_close(compiled.run(inputs), result, what=f"{name} executor vs step by step")
    expected = run_onnxruntime(model, inputs, logits_name(model))
    check_close(result, expected, RTOL, ATOL, what=f"{name} logits")
