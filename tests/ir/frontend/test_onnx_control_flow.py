"""ONNX If, Scan and Loop: a constant condition picks its branch, a run-time one becomes the
graph IR's If (only the branch taken runs); a Loop with a run-time trip count or condition,
or one that can exit early, becomes the graph IR's Loop, and so does a Scan (its scan
outputs the loop's); other Loops unroll, and so do Scans whose slices decide shapes.
Each model runs through the compiler and is checked against onnx's reference evaluator or
onnxruntime."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from bench.control_flow import gru_decoder
from codegen.executor import compile_model
from codegen.llvm.target import host_target
from codegen.prepare import prepare_for_target
from ir.errors import UnsupportedOpError, ValueDependentError
from ir.frontend.onnx import import_model
from ir.frontend.onnx.converters_control import MAX_UNROLLED_ITERATIONS
from ir.graph.nodes import Loop
from ir.graph.passes.pipeline import optimize
from ir.graph.traversal import nodes_everywhere
from tests.ir.frontend.onnx_helpers import IR_VERSION
from tests.support.control_flow_models import decoder_loop_model

RNG = np.random.default_rng(17)
FLOAT, BOOL, INT64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def _info(name: str, elem_type: int, shape: Sequence[int | str] | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def _model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: dict[str, np.ndarray] | None = None,
    opset: int = 17,
) -> onnx.ModelProto:
    tensors = [numpy_helper.from_array(value, name) for name, value in (initializers or {}).items()]
    graph = helper.make_graph(nodes, "control", inputs, outputs, tensors)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _compiled(model: onnx.ModelProto) -> object:
    target = host_target()
    return compile_model(prepare_for_target(model, target).function, target)


def _check(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    compiled: object = None,
    reference: str = "onnx",
) -> None:
    """The compiled model's outputs against onnx's reference evaluator, or onnxruntime's
    (`reference="onnxruntime"`: onnx's evaluator runs no iteration of a Loop whose
    condition input is omitted)."""
    if reference == "onnx":
        expected = ReferenceEvaluator(model).run(None, feeds)
    else:
        import onnxruntime

        options = {"providers": ["CPUExecutionProvider"]}
        expected = onnxruntime.InferenceSession(model.SerializeToString(), **options).run(
            None, feeds
        )
    outputs = (compiled or _compiled(model)).run(feeds)  # type: ignore[attr-defined]
    actual = list(outputs) if isinstance(outputs, tuple) else [outputs]
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _branches() -> tuple[onnx.GraphProto, onnx.GraphProto]:
    """then: x * 2; else: x - 1, both reading `x` from the enclosing graph."""
    two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
    one = numpy_helper.from_array(np.array(1.0, np.float32), "one")
    then_graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["then_out"])],
        "then",
        [],
        [_info("then_out", FLOAT, [2, 3])],
        [two],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Sub", ["x", "one"], ["else_out"])],
        "else",
        [],
        [_info("else_out", FLOAT, [2, 3])],
        [one],
    )
    return then_graph, else_graph


def test_if_with_a_run_time_condition_selects_between_both_branches() -> None:
    then_graph, else_graph = _branches()
    node = helper.make_node("If", ["c"], ["y"], then_branch=then_graph, else_branch=else_graph)
    model = _model(
        [node], [_info("x", FLOAT, [2, 3]), _info("c", BOOL, [])], [_info("y", FLOAT, [2, 3])]
    )
    compiled = _compiled(model)  # compiled once, run both ways
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    for flag in (True, False):
        _check(model, {"x": x, "c": np.array(flag)}, compiled)


def test_if_with_a_constant_condition_is_its_branch() -> None:
    then_graph, else_graph = _branches()
    nodes = [
        helper.make_node("ReduceSum", ["shape_sum_in"], ["total"], keepdims=0),
        helper.make_node("Greater", ["total", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_graph, else_branch=else_graph),
    ]
    model = _model(
        nodes,
        [_info("x", FLOAT, [2, 3])],
        [_info("y", FLOAT, [2, 3])],
        {"shape_sum_in": np.array([1.0, 2.0], np.float32), "zero": np.array(0.0, np.float32)},
    )
    imported = import_model(model)
    assert "where" not in str(imported.function)  # folded to the then branch
    _check(model, {"x": RNG.standard_normal((2, 3)).astype(np.float32)})


def test_if_branches_of_different_types_need_a_constant_condition() -> None:
    then_graph, _ = _branches()
    else_graph = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["else_out"], keepdims=1)],
        "else",
        [],
        [_info("else_out", FLOAT, [1, 1])],
    )
    node = helper.make_node(
        "If", ["c"], ["y"], name="if0", then_branch=then_graph, else_branch=else_graph
    )
    model = _model(
        [node], [_info("x", FLOAT, [2, 3]), _info("c", BOOL, [])], [_info("y", FLOAT, [2, 3])]
    )
    with pytest.raises(UnsupportedOpError, match=r"if0.*one type in both branches"):
        import_model(model)


def test_scan_loops_with_reversed_inputs_and_outputs_on_other_axes() -> None:
    """A running sum (state) over the columns of x, read right to left; the per-step sums
    stack along axis 1 in reverse. The Scan is one graph IR loop, not unrolled."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "column"], ["sum_out"]),
            helper.make_node("Mul", ["sum_out", "scale"], ["scaled"]),
        ],
        "body",
        [_info("sum_in", FLOAT, [3]), _info("column", FLOAT, [3])],
        [_info("sum_out", FLOAT, [3]), _info("scaled", FLOAT, [3])],
    )
    node = helper.make_node(
        "Scan",
        ["init", "x"],
        ["final", "steps"],
        body=body,
        num_scan_inputs=1,
        scan_input_axes=[1],
        scan_input_directions=[1],
        scan_output_axes=[1],
        scan_output_directions=[1],
    )
    model = _model(
        [node],
        [_info("init", FLOAT, [3]), _info("x", FLOAT, [3, 5])],
        [_info("final", FLOAT, [3]), _info("steps", FLOAT, [3, 5])],
        {"scale": np.array(0.5, np.float32)},
    )
    loops = [
        node for node in nodes_everywhere(import_model(model).function) if isinstance(node, Loop)
    ]
    assert [loop.scan_outputs for loop in loops] == [1]
    init = RNG.standard_normal(3).astype(np.float32)
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    # onnx's reference evaluator has no reversed scans: the same in numpy.
    running = init[:, None] + np.cumsum(x[:, ::-1], axis=1)
    final, steps = running[:, -1], (running * 0.5)[:, ::-1]
    outputs = _compiled(model).run({"init": init, "x": x})  # type: ignore[attr-defined]
    np.testing.assert_allclose(outputs[0], final, rtol=1e-5)
    np.testing.assert_allclose(outputs[1], steps, rtol=1e-5)


def _cumulative_scan(length: int) -> onnx.ModelProto:
    """Scan over the rows of x (length x 4): the state adds each row; the scan output is
    the state after each row, times 2."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
            helper.make_node("Add", ["sum_out", "sum_out"], ["doubled"]),
        ],
        "body",
        [_info("sum_in", FLOAT, [4]), _info("row", FLOAT, [4])],
        [_info("sum_out", FLOAT, [4]), _info("doubled", FLOAT, [4])],
    )
    node = helper.make_node("Scan", ["init", "x"], ["final", "steps"], body=body, num_scan_inputs=1)
    return _model(
        [node],
        [_info("init", FLOAT, [4]), _info("x", FLOAT, [length, 4])],
        [_info("final", FLOAT, [4]), _info("steps", FLOAT, [length, 4])],
    )


def _scan8(lengths: np.ndarray | None) -> onnx.ModelProto:
    """Scan-8 (opset 8) over a batch of 2: a running sum of x's rows, read backwards, and
    the sums scanned out."""
    body = helper.make_graph(
        [
            helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
            helper.make_node("Identity", ["sum_out"], ["trace"]),
        ],
        "body",
        [_info("sum_in", FLOAT, [3]), _info("row", FLOAT, [3])],
        [_info("sum_out", FLOAT, [3]), _info("trace", FLOAT, [3])],
    )
    node = helper.make_node(
        "Scan",
        ["lengths" if lengths is not None else "", "init", "x"],
        ["final", "traces"],
        name="scan8",
        body=body,
        num_scan_inputs=1,
        directions=[1],
    )
    initializers = {} if lengths is None else {"lengths": lengths}
    return _model(
        [node],
        [_info("init", FLOAT, [2, 3]), _info("x", FLOAT, [2, 5, 3])],
        [_info("final", FLOAT, [2, 3]), _info("traces", FLOAT, [2, 5, 3])],
        initializers,
        opset=8,
    )


def test_scan_8_runs_one_loop_per_sample_of_its_batch() -> None:
    init = RNG.standard_normal((2, 3)).astype(np.float32)
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    running = init[:, None, :] + np.cumsum(x[:, ::-1], axis=1)
    for lengths in (None, np.array([5, 5], np.int64)):
        model = _scan8(lengths)
        loops = [n for n in nodes_everywhere(import_model(model).function) if isinstance(n, Loop)]
        assert len(loops) == 2
        final, traces = _compiled(model).run({"init": init, "x": x})  # type: ignore[attr-defined]
        np.testing.assert_allclose(final, running[:, -1], rtol=1e-5)
        np.testing.assert_allclose(traces, running, rtol=1e-5)
    with pytest.raises(UnsupportedOpError, match=r"scan8.*sequence_lens \[5, 3\]"):
        import_model(_scan8(np.array([5, 3], np.int64)))


def test_a_scan_longer_than_unrolling_allows_runs_as_a_loop() -> None:
    length = MAX_UNROLLED_ITERATIONS + 3
    model = _cumulative_scan(length)
    init = RNG.integers(-3, 4, 4).astype(np.float32)
    x = RNG.integers(-3, 4, (length, 4)).astype(np.float32)  # exact sums in float32
    final, steps = _compiled(model).run({"init": init, "x": x})  # type: ignore[attr-defined]
    running = init + np.cumsum(x, axis=0, dtype=np.float64)
    np.testing.assert_allclose(final, running[-1], rtol=1e-6)
    np.testing.assert_allclose(steps, 2 * running, rtol=1e-6)


def test_a_scan_whose_slices_decide_a_shape_unrolls() -> None:
    """Each step transposes the state as a matrix of the shape read from a constant
    scanned input: the loop could not give Reshape a compile-time shape, the unrolled
    copies can."""
    body = helper.make_graph(
        [
            helper.make_node("Reshape", ["state_in", "shape"], ["matrix"]),
            helper.make_node("Transpose", ["matrix"], ["transposed"]),
            helper.make_node("Reshape", ["transposed", "flat"], ["state_out"]),
            helper.make_node("Identity", ["state_out"], ["trace"]),
        ],
        "body",
        [_info("state_in", FLOAT, [6]), _info("shape", INT64, [2])],
        [_info("state_out", FLOAT, [6]), _info("trace", FLOAT, [6])],
        [numpy_helper.from_array(np.array([6], np.int64), "flat")],
    )
    node = helper.make_node(
        "Scan", ["init", "shapes"], ["final", "traces"], body=body, num_scan_inputs=1
    )
    model = _model(
        [node],
        [_info("init", FLOAT, [6])],
        [_info("final", FLOAT, [6]), _info("traces", FLOAT, [3, 6])],
        {"shapes": np.array([[2, 3], [3, 2], [1, 6]], np.int64)},
    )
    imported = import_model(model)
    assert not any(isinstance(node, Loop) for node in nodes_everywhere(imported.function))
    _check(model, {"init": RNG.standard_normal(6).astype(np.float32)})


def test_a_loop_with_scan_outputs_longer_than_unrolling_allows_runs_as_a_loop() -> None:
    """A constant count and a body that cannot end it early: the scan outputs' length is
    known, so the loop is the IR's, scan outputs and all (refused before)."""
    trips = MAX_UNROLLED_ITERATIONS + 2
    node = helper.make_node("Loop", ["n", "", "init"], ["final", "traces"], body=_loop_body())
    model = _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4])],
        [_info("final", FLOAT, [4]), _info("traces", FLOAT, [trips, 4])],
        {"n": np.array(trips, np.int64)},
    )
    loops = [
        node for node in nodes_everywhere(import_model(model).function) if isinstance(node, Loop)
    ]
    assert [loop.scan_outputs for loop in loops] == [1]
    x = RNG.integers(-2, 3, 4).astype(np.float32)
    feeds = {"x": x, "init": np.zeros(4, np.float32)}
    final, traces = _compiled(model).run(feeds)  # type: ignore[attr-defined]
    totals = np.cumsum(np.arange(trips, dtype=np.float64))[:, None] * x
    np.testing.assert_allclose(traces, totals, rtol=1e-6)
    np.testing.assert_allclose(final, totals[-1], rtol=1e-6)


def _loop_body(condition: onnx.NodeProto | None = None) -> onnx.GraphProto:
    """state += iteration * x; the scan output is the state after each step."""
    nodes = [
        helper.make_node("Cast", ["i"], ["i_float"], to=FLOAT),
        helper.make_node("Mul", ["i_float", "x"], ["step"]),
        helper.make_node("Add", ["state_in", "step"], ["state_out"]),
        helper.make_node("Identity", ["state_out"], ["trace"]),
        condition or helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ]
    return helper.make_graph(
        nodes,
        "body",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("state_in", FLOAT, [4])],
        [_info("cond_out", BOOL, []), _info("state_out", FLOAT, [4]), _info("trace", FLOAT, [4])],
    )


def test_loop_with_a_constant_trip_count_unrolls() -> None:
    node = helper.make_node("Loop", ["trips", "go", "init"], ["final", "traces"], body=_loop_body())
    model = _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4])],
        [_info("final", FLOAT, [4]), _info("traces", FLOAT, [3, 4])],
        {"trips": np.array(3, np.int64), "go": np.array(True)},
    )
    feeds = {"x": RNG.standard_normal(4).astype(np.float32), "init": np.zeros(4, np.float32)}
    _check(model, feeds)


def _early_exit_body(with_trace: bool = False) -> onnx.GraphProto:
    """state += x; the loop goes on while the state's sum stays below the limit."""
    nodes = [
        helper.make_node("Add", ["state_in", "x"], ["state_out"]),
        helper.make_node("ReduceSum", ["state_out"], ["total"], keepdims=0),
        helper.make_node("Less", ["total", "limit"], ["cond_out"]),
    ]
    outputs = [_info("cond_out", BOOL, []), _info("state_out", FLOAT, [4])]
    if with_trace:
        nodes.append(helper.make_node("Identity", ["state_out"], ["trace"]))
        outputs.append(_info("trace", FLOAT, [4]))
    return helper.make_graph(
        nodes,
        "body",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("state_in", FLOAT, [4])],
        outputs,
    )


def _early_exit_model(condition: str, with_trace: bool = False) -> onnx.ModelProto:
    outputs = ["final", "traces"] if with_trace else ["final"]
    node = helper.make_node(
        "Loop",
        ["trips", condition, "init"],
        outputs,
        name="loop0",
        body=_early_exit_body(with_trace),
    )
    inputs = [_info("x", FLOAT, [4]), _info("init", FLOAT, [4]), _info("limit", FLOAT, [])]
    constants = {"trips": np.array(6, np.int64)}
    if condition == "go":
        inputs.append(_info("go", BOOL, []))
    else:
        constants["go_always"] = np.array(True)
    infos = [_info("final", FLOAT, [4])] + ([_info("traces", FLOAT, [6, 4])] if with_trace else [])
    return _model([node], inputs, infos, constants)


@pytest.mark.parametrize("limit", [-1.0, 2.5, 7.5, 100.0])
def test_a_loop_that_exits_early_on_the_data_keeps_the_states_of_its_last_step(
    limit: float,
) -> None:
    """Six copies run; each keeps its state only while the condition has held: the loop
    stops after 1, 3 or 6 steps depending on the data, as onnx's reference evaluator."""
    model = _early_exit_model("go_always")
    compiled = _compiled(model)
    feeds = {
        "x": np.ones(4, np.float32) * 0.25,
        "init": np.zeros(4, np.float32),
        "limit": np.array(limit, np.float32),
    }
    _check(model, feeds, compiled)


@pytest.mark.parametrize("go", [True, False])
def test_a_loop_whose_first_condition_is_an_input_runs_masked_from_the_start(go: bool) -> None:
    model = _early_exit_model("go")
    feeds = {
        "x": RNG.standard_normal(4).astype(np.float32),
        "init": np.ones(4, np.float32),
        "limit": np.array(3.0, np.float32),
        "go": np.array(go),
    }
    _check(model, feeds)


def test_a_data_dependent_loop_with_scan_outputs_is_refused_by_name() -> None:
    model = _early_exit_model("go_always", with_trace=True)
    with pytest.raises(UnsupportedOpError, match=r"loop0.*number of its scan outputs"):
        import_model(model)


def test_a_branch_on_a_mean_and_a_recurrent_loop_compile_to_an_artifact(tmp_path: Path) -> None:
    """A cell `h = tanh(h @ W + x)` run 3 times by a Loop (a constant count: it unrolls),
    then an If on the mean of the result (computed at run time): the artifact matches
    onnxruntime on both branches."""
    import onnxruntime

    from codegen.runtime.loader import load_artifact
    from tests.codegen.aot.conftest import compile_onnx

    width = 8
    cell = helper.make_graph(
        [
            helper.make_node("MatMul", ["h_in", "w"], ["mixed"]),
            helper.make_node("Add", ["mixed", "x"], ["summed"]),
            helper.make_node("Tanh", ["summed"], ["h_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "cell",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("h_in", FLOAT, [1, width])],
        [_info("cond_out", BOOL, []), _info("h_out", FLOAT, [1, width])],
    )
    then_graph, else_graph = _branches()
    for graph in (then_graph, else_graph):  # the branches read the loop's result
        for node in graph.node:
            node.input[0] = "h"
        graph.output[0].type.tensor_type.shape.dim[0].dim_value = 1
        graph.output[0].type.tensor_type.shape.dim[1].dim_value = width
    nodes = [
        helper.make_node("Loop", ["trips", "go", "h0"], ["h"], body=cell),
        helper.make_node("ReduceMean", ["h"], ["mean"], keepdims=0),
        helper.make_node("Greater", ["mean", "zero"], ["positive"]),
        helper.make_node("If", ["positive"], ["y"], then_branch=then_graph, else_branch=else_graph),
    ]
    weights = {
        "trips": np.array(3, np.int64),
        "go": np.array(True),
        "w": (RNG.standard_normal((width, width)) * 0.3).astype(np.float32),
        "zero": np.array(0.0, np.float32),
    }
    model = _model(
        nodes,
        [_info("x", FLOAT, [1, width]), _info("h0", FLOAT, [1, width])],
        [_info("y", FLOAT, [1, width])],
        weights,
    )
    text = str(import_model(model).function)
    assert "loop(" not in text and "if(" in text  # 3 constant steps unroll; the If stays
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    artifact = compile_onnx(model, tmp_path)
    with load_artifact(artifact.path) as loaded:
        for sign in (1.0, -1.0):
            feeds = {
                "x": (sign + 0.1 * RNG.standard_normal((1, width))).astype(np.float32),
                "h0": np.zeros((1, width), np.float32),
            }
            expected = session.run(None, feeds)[0]
            assert (expected.mean() > 0) == (sign > 0)  # 2h or h - 1: each branch taken once
            np.testing.assert_allclose(loaded.run(feeds)["y"], expected, rtol=1e-5, atol=1e-6)


def _counting_body(
    state_shape: Sequence[int] = (4,), out_shape: Sequence[int] = (4,)
) -> onnx.GraphProto:
    """state = state * 0.5 + x + iteration (x read from the enclosing graph)."""
    nodes = [
        helper.make_node("Cast", ["i"], ["i_float"], to=FLOAT),
        helper.make_node("Mul", ["state_in", "half"], ["halved"]),
        helper.make_node("Add", ["halved", "x"], ["shifted"]),
        helper.make_node("Add", ["shifted", "i_float"], ["state_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ]
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    return helper.make_graph(
        nodes,
        "counting",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("state_in", FLOAT, state_shape)],
        [_info("cond_out", BOOL, []), _info("state_out", FLOAT, out_shape)],
        [half],
    )


def _run_time_trips_model() -> onnx.ModelProto:
    node = helper.make_node(
        "Loop", ["n", "", "init"], ["final"], name="count", body=_counting_body()
    )
    return _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4]), _info("n", INT64, [])],
        [_info("final", FLOAT, [4])],
    )


def test_a_loop_with_a_run_time_trip_count_runs_that_many_iterations() -> None:
    model = _run_time_trips_model()
    imported = import_model(model)
    assert "loop(" in str(imported.function)
    compiled = _compiled(model)  # compiled once, for any trip count
    for trips in (0, 1, 7, 300):
        feeds: dict[str, np.ndarray] = {
            "x": RNG.standard_normal(4).astype(np.float32),
            "init": RNG.standard_normal(4).astype(np.float32),
            "n": np.array(trips, np.int64),
        }
        _check(model, feeds, compiled, "onnxruntime")


def test_a_while_loop_without_a_trip_count_stops_on_its_condition() -> None:
    """Loop("", cond, state): runs until the body's condition fails, however long."""
    body = _early_exit_body()
    node = helper.make_node("Loop", ["", "go", "init"], ["final"], name="until", body=body)
    model = _model(
        [node],
        [
            _info("x", FLOAT, [4]),
            _info("init", FLOAT, [4]),
            _info("limit", FLOAT, []),
            _info("go", BOOL, []),
        ],
        [_info("final", FLOAT, [4])],
    )
    compiled = _compiled(model)
    for limit, go in ((3.0, True), (250.0, True), (3.0, False)):
        feeds = {
            "x": np.full(4, 0.125, np.float32),
            "init": np.zeros(4, np.float32),
            "limit": np.array(limit, np.float32),
            "go": np.array(go),
        }
        _check(model, feeds, compiled, "onnxruntime")


def test_a_loop_longer_than_unrolling_allows_runs_as_a_loop() -> None:
    node = helper.make_node("Loop", ["n", "", "init"], ["final"], body=_counting_body())
    model = _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4])],
        [_info("final", FLOAT, [4])],
        {"n": np.array(MAX_UNROLLED_ITERATIONS + 5, np.int64)},
    )
    feeds = {"x": RNG.standard_normal(4).astype(np.float32), "init": np.zeros(4, np.float32)}
    imported = import_model(model)
    assert "loop(" in str(imported.function)
    _check(model, feeds, reference="onnxruntime")


def test_a_loop_whose_state_changes_shape_needs_its_trip_count_bound() -> None:
    """The IR's Loop keeps its states' types; this one can only unroll, for a bound count."""
    body = _counting_body()
    body.node.append(helper.make_node("Concat", ["state_out", "state_out"], ["grown"], axis=0))
    body.output[1].CopyFrom(_info("grown", FLOAT, [8]))
    node = helper.make_node("Loop", ["n", "", "init"], ["final"], name="grow", body=body)
    model = _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4]), _info("n", INT64, [])],
        [_info("final", FLOAT, [8])],
    )
    with pytest.raises(ValueDependentError, match=r"grow.*state 0 goes from .*\(4\).* to .*\(8\)"):
        import_model(model)


def test_a_run_time_trip_count_with_scan_outputs_compiles_for_its_value() -> None:
    """Scan outputs stack one row per iteration, so their shape needs the trip count: it
    is a value-dependent operand (named), and binding its value unrolls the loop."""
    node = helper.make_node(
        "Loop", ["n", "", "init"], ["final", "traces"], name="scan0", body=_loop_body()
    )
    model = _model(
        [node],
        [_info("x", FLOAT, [4]), _info("init", FLOAT, [4]), _info("n", INT64, [])],
        [_info("final", FLOAT, [4]), _info("traces", FLOAT, ["steps", 4])],
    )
    with pytest.raises(ValueDependentError, match=r"scan0.*trip count of a Loop with scan"):
        import_model(model)
    imported = import_model(model, values={"n": np.array(3, np.int64)})
    x = RNG.standard_normal(4).astype(np.float32)
    outputs = compile_model(optimize(imported.function)).run(
        {"x": x, "init": np.zeros(4, np.float32)}
    )
    np.testing.assert_allclose(outputs[1], np.stack([0 * x, 1 * x, 3 * x]), rtol=1e-6)


def test_a_decoder_loop_with_a_branch_inside_compiles_to_an_artifact(tmp_path: Path) -> None:
    """One artifact for every trip count and limit; it matches onnxruntime, through the
    JIT executor and through the artifact's C entry point."""
    import onnxruntime

    from codegen.runtime.loader import load_artifact
    from tests.codegen.aot.conftest import compile_onnx

    model = decoder_loop_model()
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    compiled = _compiled(model)
    artifact = compile_onnx(model, tmp_path)
    assert artifact.manifest["control_flow"] is True
    with load_artifact(artifact.path) as loaded:
        for trips, limit in ((0, 9.0), (1, 9.0), (6, 9.0), (40, 0.5), (40, -2.0)):
            feeds = {
                "x": RNG.standard_normal((1, 8)).astype(np.float32),
                "h0": np.zeros((1, 8), np.float32),
                "n": np.array(trips, np.int64),
                "limit": np.array(limit, np.float32),
            }
            expected = session.run(None, feeds)[0]
            jit = compiled.run(feeds)  # type: ignore[attr-defined]
            np.testing.assert_allclose(jit, expected, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(loaded.run(feeds)["h"], expected, rtol=1e-5, atol=1e-6)


def test_a_gru_cell_run_n_times_by_a_loop_matches_onnxruntime() -> None:
    """bench/control_flow.py's decoder (an ONNX GRU cell fed its own projected state)
    with a run-time step count: one compile for every count."""
    model = gru_decoder(hidden=16, batch=2, steps=None, seed=5)
    compiled = _compiled(model)
    for trips in (0, 1, 5, 33):
        feeds: dict[str, np.ndarray] = {
            "h0": RNG.standard_normal((1, 2, 16)).astype(np.float32),
            "n": np.array(trips, np.int64),
        }
        _check(model, feeds, compiled, "onnxruntime")


def test_a_shape_computed_outside_stays_a_constant_inside_a_run_time_loop() -> None:
    """The body reshapes its state to a shape the main graph computes (Shape of an input):
    folded before the loop, it is a compile-time operand inside the body too."""
    body = helper.make_graph(
        [
            helper.make_node("Reshape", ["state_in", "flat"], ["flat_state"]),
            helper.make_node("Add", ["flat_state", "one"], ["bumped"]),
            helper.make_node("Reshape", ["bumped", "grid"], ["state_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        "reshaping",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("state_in", FLOAT, [2, 3])],
        [_info("cond_out", BOOL, []), _info("state_out", FLOAT, [2, 3])],
        [numpy_helper.from_array(np.array(1.0, np.float32), "one")],
    )
    nodes = [
        helper.make_node("Shape", ["init"], ["grid"]),
        helper.make_node("ReduceProd", ["grid"], ["count"], keepdims=1),
        helper.make_node("Identity", ["count"], ["flat"]),
        helper.make_node("Loop", ["n", "", "init"], ["final"], name="reshaping_loop", body=body),
    ]
    model = _model(
        nodes,
        [_info("init", FLOAT, [2, 3]), _info("n", INT64, [])],
        [_info("final", FLOAT, [2, 3])],
    )
    assert "loop(" in str(import_model(model).function)
    compiled = _compiled(model)
    for trips in (0, 4):
        feeds: dict[str, np.ndarray] = {
            "init": RNG.standard_normal((2, 3)).astype(np.float32),
            "n": np.array(trips, np.int64),
        }
        _check(model, feeds, compiled, "onnxruntime")
