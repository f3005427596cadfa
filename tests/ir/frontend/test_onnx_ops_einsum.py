"""Single-node ONNX models of Einsum, CumSum, Trilu and TopK against onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from ir.errors import ModelImportError
from ir.frontend.onnx import from_onnx
from tests.ir.frontend.onnx_helpers import (
    OpCase,
    assert_matches_onnxruntime,
    make_model,
    op_case,
    randn,
)
from tests.ir.frontend.test_onnx_errors import raw_model, tensor


def _einsum(case_id: str, equation: str, *shapes: tuple[int, ...]) -> object:
    names = [f"x{index}" for index in range(len(shapes))]
    feeds = {name: randn(*shape) for name, shape in zip(names, shapes, strict=True)}
    return op_case(case_id, "Einsum", names, feeds, opset=12, equation=equation)


EINSUM = [
    _einsum("matmul", "ij,jk->ik", (3, 4), (4, 5)),
    _einsum("batched", "bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    _einsum("attention_scores", "bhqd,bhkd->bhqk", (2, 3, 4, 8), (2, 3, 5, 8)),
    _einsum("attention_values", "bhqk,bhkd->bqhd", (2, 3, 4, 5), (2, 3, 5, 8)),
    _einsum("outer", "i,j->ij", (3,), (4,)),
    _einsum("dot", "i,i->", (6,), (6,)),
    _einsum("rowwise_dot", "bi,bi->b", (3, 5), (3, 5)),
    _einsum("hadamard", "ij,ij->ij", (3, 4), (3, 4)),
    _einsum("transpose", "ij->ji", (3, 4)),
    _einsum("total", "ij->", (3, 4)),
    _einsum("partial_sum", "ijk->ik", (2, 3, 4)),
    _einsum("implicit_output", "ij,jk", (3, 4), (4, 5)),
    _einsum("implicit_transpose", "ba", (3, 4)),
    _einsum("channels_mix", "bchw,kc->bkhw", (2, 3, 4, 5), (6, 3)),
    _einsum("three_operands", "abc,cd,de->abe", (2, 3, 4), (4, 5), (5, 6)),
    _einsum("summed_before_product", "ijk,kl->il", (2, 3, 4), (4, 5)),
    _einsum("ellipsis_broadcast", "...ij,...jk->...ik", (2, 1, 3, 4), (1, 5, 4, 6)),
    _einsum("ellipsis_implicit", "...ij,jk", (2, 3, 4), (4, 5)),
    _einsum("spaces", "i j , j k -> i k", (3, 4), (4, 2)),
    _einsum("diagonal", "ii->i", (4, 4)),
    _einsum("trace", "ii", (5, 5)),
    _einsum("batch_diagonal", "...ii->...i", (2, 3, 4, 4)),
    _einsum("diagonal_apart", "iji->ji", (3, 2, 3)),
    _einsum("triple_diagonal", "iii->i", (3, 3, 3)),
    _einsum("diagonal_times", "ii,ij->ij", (3, 3), (3, 4)),
]

CUMSUM = [
    op_case(
        f"cumsum_axis{axis}_excl{exclusive}_rev{reverse}",
        "CumSum",
        ["x", "axis"],
        {"x": randn(3, 5, 4)},
        consts={"axis": np.array(axis, np.int64)},
        exclusive=exclusive,
        reverse=reverse,
    )
    for axis in (1, -1)
    for exclusive in (0, 1)
    for reverse in (0, 1)
] + [
    op_case(
        "cumsum_int",
        "CumSum",
        ["x", "axis"],
        {"x": np.arange(36, dtype=np.int64).reshape(2, 6, 3) - 10},
        consts={"axis": np.array(1, np.int64)},
        outputs={"y": np.int64},
    ),
]

TRILU = [
    op_case(
        f"trilu_upper{upper}_k{k}",
        "Trilu",
        ["x", "k"],
        {"x": randn(2, 4, 5)},
        consts={"k": np.array(k, np.int64)},
        opset=14,
        upper=upper,
    )
    for upper in (0, 1)
    for k in (-1, 0, 2)
] + [op_case("trilu_default", "Trilu", ["x"], {"x": randn(5, 3)}, opset=14)]


@pytest.mark.parametrize("case", EINSUM + CUMSUM + TRILU)
def test_op_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=1e-4, atol=1e-5)


def test_einsum_refuses_uneven_diagonals_and_mismatched_sizes_by_name() -> None:
    diagonal = raw_model(
        [helper.make_node("Einsum", ["x"], ["y"], name="diag0", equation="ii->i")],
        [tensor("x", [3, 4])],
        [tensor("y", [3])],
        opset=12,
    )
    with pytest.raises(ModelImportError, match=r"diag0.*letter 'i' repeats .* sizes \[3, 4\]"):
        from_onnx(diagonal)
    mismatched = raw_model(
        [helper.make_node("Einsum", ["a", "b"], ["y"], name="mm0", equation="ij,jk->ik")],
        [tensor("a", [3, 4]), tensor("b", [5, 6])],
        [tensor("y", [3, 6])],
        opset=12,
    )
    with pytest.raises(ModelImportError, match=r"mm0.*letter 'j' has sizes 4 and 5"):
        from_onnx(mismatched)


def _top_k(case_id: str, data: np.ndarray, k: int, **attrs: object) -> object:
    return op_case(
        case_id,
        "TopK",
        ["x", "k"],
        {"x": data},
        consts={"k": np.array([k], np.int64)},
        outputs={"values": np.float32, "indices": np.int64},
        opset=11,
        **attrs,
    )


TIES = np.array([[3, 1, 3, 2, 1, 3], [0, 0, 0, 0, 0, 0]], np.float32)
TOP_K = [
    _top_k("top_k_last_axis", randn(3, 10), 4),
    _top_k("top_k_smallest", randn(3, 10), 3, largest=0),
    _top_k("top_k_middle_axis", randn(2, 7, 3), 2, axis=1),
    _top_k("top_k_all", randn(4, 5), 4, axis=0),
    _top_k("top_k_ties", TIES, 4),
    _top_k("top_k_ties_smallest", TIES, 3, largest=0),
]


@pytest.mark.parametrize("case", TOP_K)
def test_top_k_matches_onnxruntime(case: OpCase) -> None:
    assert_matches_onnxruntime(case.model(), case.feeds, rtol=0, atol=0)


@pytest.mark.parametrize(("exclusive", "reverse"), [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_cumprod_compiles_and_matches_numpy(exclusive: int, reverse: int) -> None:
    """CumProd (opset 26) with a constant axis; the running product of the (reversed)
    values, shifted by one when exclusive."""
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    x = (np.random.default_rng(11).random((3, 5)) + 0.5).astype(np.float32)
    node = helper.make_node("CumProd", ["x", "axis"], ["y"], exclusive=exclusive, reverse=reverse)
    graph = helper.make_graph(
        [node],
        "cumprod",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, x.shape)],
        [numpy_helper.from_array(np.array(1, np.int64), "axis")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 26)])
    values = x[:, ::-1] if reverse else x
    expected = np.cumprod(values, axis=1)
    if exclusive:
        expected = np.concatenate([np.ones((3, 1), np.float32), expected[:, :-1]], axis=1)
    if reverse:
        expected = expected[:, ::-1]
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    np.testing.assert_allclose(compiled.run({"x": x}), expected, rtol=1e-5)


@pytest.mark.parametrize("equation", ["...ii->...i", "ii,ij->ij", "iji->j"])
def test_einsum_diagonals_compile_and_match_numpy(equation: str) -> None:
    from codegen.executor import compile_model
    from codegen.llvm.target import host_target
    from codegen.prepare import prepare_for_target

    shapes = {
        "...ii->...i": [(2, 3, 4, 4)],
        "ii,ij->ij": [(3, 3), (3, 5)],
        "iji->j": [(4, 2, 4)],
    }[equation]
    feeds = {f"x{index}": randn(*shape) for index, shape in enumerate(shapes)}
    node = helper.make_node("Einsum", list(feeds), ["y"], equation=equation)
    model = make_model([node], feeds, opset=12)
    target = host_target()
    compiled = compile_model(prepare_for_target(model, target).function, target)
    expected = np.einsum(equation, *feeds.values())
    np.testing.assert_allclose(compiled.run(feeds), expected, rtol=1e-5, atol=1e-6)
