"""The C side of a model library: the ABI functions of `model.h` around the entry function,
the metadata tables and the list of exported symbols.

The weights are not in the library: they travel beside it as `weights.bin`, and the caller
hands their bytes to `autotune_create` (mapped from a file, or read into memory). A library
without its weights is small, so it is checked and mapped quickly, and the weights can be
mapped from a file straight into memory, shared by every process that runs the model.

Everything here is generated text whose content depends only on the plan, so the same plan
gives the same source, and the system compiler the same object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codegen.aot.memory import align_up
from codegen.aot.module import ENTRY_SYMBOL
from codegen.aot.plan import ModelPlan, TensorSpec
from ir.tir.dim_text import parse_dim
from ir.tir.expr import Binary, IntImm, PrimExpr
from ir.tir.expr import Var as SizeVar

ABI_VERSION = 3
WEIGHTS_ALIGN_BYTES = 64
EXPORTED_SYMBOLS = (
    "autotune_abi_version",
    "autotune_workspace_bytes",
    "autotune_weights_bytes",
    "autotune_create",
    "autotune_run",
    "autotune_run_sized",
    "autotune_destroy",
    "autotune_num_sizes",
    "autotune_size_name",
    "autotune_size_upper",
    "autotune_input_sizes",
    "autotune_output_shape_at",
    "autotune_num_inputs",
    "autotune_input_name",
    "autotune_input_dtype",
    "autotune_input_ndim",
    "autotune_input_shape",
    "autotune_num_outputs",
    "autotune_output_name",
    "autotune_output_dtype",
    "autotune_output_ndim",
    "autotune_output_shape",
)


MODEL_HEADER = r"""/* The C ABI of an autotune model artifact (model.so), version 3.
 *
 * The model's weights are the bytes of the artifact's weights.bin: map that file (mmap)
 * or read it into memory aligned to 64 bytes, and hand it to autotune_create. A model
 * handle owns its workspace and borrows the weights, which must stay unchanged until it
 * is destroyed; several handles may share one copy of the weights. Run a handle from one
 * thread at a time (create one handle per thread to run in parallel). Arrays are dense,
 * C order, native byte order, of exactly the shapes and dtypes the metadata functions
 * report; outputs must not overlap inputs. The dtype strings are numpy's names
 * ("float32", "int64", ...).
 *
 * A model compiled for a range of shapes has size variables (autotune_num_sizes() > 0):
 * each symbolic input dim is one of them (autotune_input_sizes), and each takes any value
 * from 1 to its upper bound. Such a model runs with autotune_run_sized, given the value
 * of every size variable; its inputs are then of those sizes, and its outputs of the
 * shapes autotune_output_shape_at gives for them. The shape functions report the upper
 * bounds; the workspace is sized for them.
 */
#ifndef AUTOTUNE_MODEL_H
#define AUTOTUNE_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AUTOTUNE_ABI_VERSION 3
#define AUTOTUNE_WEIGHTS_ALIGN 64
#define AUTOTUNE_OK 0
#define AUTOTUNE_ERROR_NULL_ARGUMENT (-1)
#define AUTOTUNE_ERROR_SIZE_OUT_OF_RANGE (-2)
#define AUTOTUNE_ERROR_SIZES_REQUIRED (-3)
#define AUTOTUNE_ERROR_BAD_INDEX (-4)

typedef struct autotune_model autotune_model;

int32_t autotune_abi_version(void);
int64_t autotune_workspace_bytes(void);
/* The size of weights.bin: what autotune_create reads from its `weights`. */
int64_t autotune_weights_bytes(void);

/* A new model handle over `weights` (autotune_weights_bytes() bytes, aligned to
 * AUTOTUNE_WEIGHTS_ALIGN), or NULL when `weights` is NULL or misaligned, or when the
 * workspace cannot be allocated. */
autotune_model *autotune_create(const void *weights);
/* Run the model: inputs[i] / outputs[i] point at the data of input / output i.
 * Returns AUTOTUNE_OK, or AUTOTUNE_ERROR_NULL_ARGUMENT when a pointer is NULL, or
 * AUTOTUNE_ERROR_SIZES_REQUIRED for a model with size variables. */
int32_t autotune_run(autotune_model *model, const void *const *inputs, void *const *outputs);
/* Run with the size variables at `sizes` (one value each; may be NULL when there are
 * none). Returns as autotune_run, or AUTOTUNE_ERROR_SIZE_OUT_OF_RANGE when a value is
 * below 1 or above its upper bound (nothing runs then). */
int32_t autotune_run_sized(autotune_model *model, const int64_t *sizes, const void *const *inputs,
                           void *const *outputs);
void autotune_destroy(autotune_model *model);

/* Size variables: their names and upper bounds (NULL / -1 for an out-of-range index). */
int32_t autotune_num_sizes(void);
const char *autotune_size_name(int32_t index);
int64_t autotune_size_upper(int32_t index);
/* Per dim of input `index`: the index of the size variable the dim is, or -1 where it is
 * fixed (NULL for an out-of-range index). */
const int32_t *autotune_input_sizes(int32_t index);
/* Write the shape of output `index` for the size variables at `sizes` into `shape`
 * (autotune_output_ndim(index) values). Returns AUTOTUNE_OK, AUTOTUNE_ERROR_NULL_ARGUMENT,
 * AUTOTUNE_ERROR_SIZE_OUT_OF_RANGE or AUTOTUNE_ERROR_BAD_INDEX. */
int32_t autotune_output_shape_at(int32_t index, const int64_t *sizes, int64_t *shape);

/* Metadata. Out-of-range indices give NULL (names, dtypes, shapes) or -1 (ndim). */
int32_t autotune_num_inputs(void);
const char *autotune_input_name(int32_t index);
const char *autotune_input_dtype(int32_t index);
int32_t autotune_input_ndim(int32_t index);
const int64_t *autotune_input_shape(int32_t index);

int32_t autotune_num_outputs(void);
const char *autotune_output_name(int32_t index);
const char *autotune_output_dtype(int32_t index);
int32_t autotune_output_ndim(int32_t index);
const int64_t *autotune_output_shape(int32_t index);

#ifdef __cplusplus
}
#endif

#endif /* AUTOTUNE_MODEL_H */
"""


def c_string(text: str) -> str:
    """`text` as a C string literal (UTF-8; anything but plain ASCII escaped in octal)."""
    parts = []
    for byte in text.encode():
        char = chr(byte)
        if (char.isascii() and char.isalnum()) or char in " _-.:/[]()":
            parts.append(char)
        else:
            parts.append(f"\\{byte:03o}")
    return '"' + "".join(parts) + '"'


def _tables(prefix: str, specs: Sequence[TensorSpec]) -> str:
    count = len(specs)
    more = ", " if count else ""
    more_dims = ", " if sum(len(spec.shape) for spec in specs) else ""
    names = ", ".join(c_string(spec.name) for spec in specs)
    dtypes = ", ".join(c_string(spec.dtype) for spec in specs)
    ndims = ", ".join(str(len(spec.shape)) for spec in specs)
    dims: list[int] = []
    starts: list[int] = []
    for spec in specs:
        starts.append(len(dims))
        dims.extend(spec.shape)
    flat = ", ".join(str(d) for d in dims)
    starts_text = ", ".join(str(s) for s in starts)
    # One spare element in each table: C has no empty arrays.
    return f"""
static const char *const {prefix}_names[{count + 1}] = {{{names}{more}0}};
static const char *const {prefix}_dtypes[{count + 1}] = {{{dtypes}{more}0}};
static const int32_t {prefix}_ndims[{count + 1}] = {{{ndims}{more}0}};
static const int64_t {prefix}_dims[{len(dims) + 1}] = {{{flat}{more_dims}0}};
static const int32_t {prefix}_starts[{count + 1}] = {{{starts_text}{more}0}};

#define IN_RANGE(i) ((i) >= 0 && (i) < {count})
int32_t autotune_num_{prefix}s(void) {{ return {count}; }}
const char *autotune_{prefix}_name(int32_t i) {{ return IN_RANGE(i) ? {prefix}_names[i] : 0; }}
const char *autotune_{prefix}_dtype(int32_t i) {{ return IN_RANGE(i) ? {prefix}_dtypes[i] : 0; }}
int32_t autotune_{prefix}_ndim(int32_t i) {{ return IN_RANGE(i) ? {prefix}_ndims[i] : -1; }}
const int64_t *autotune_{prefix}_shape(int32_t i) {{
    return IN_RANGE(i) ? {prefix}_dims + {prefix}_starts[i] : 0;
}}
#undef IN_RANGE
"""


def _size_source(plan: ModelPlan[Any]) -> str:
    """The size-variable tables, the size checks, autotune_input_sizes and
    autotune_output_shape_at."""
    names = [size.name for size in plan.sizes]
    count = len(names)
    more = ", " if count else ""
    indices: list[str] = []
    for spec in plan.inputs:
        dims = spec.dims or tuple(str(extent) for extent in spec.shape)
        indices.extend(str(names.index(dim)) if dim in names else "-1" for dim in dims)
    cases = []
    for position, spec in enumerate(plan.outputs):
        dims = spec.dims or tuple(str(extent) for extent in spec.shape)
        lines = "".join(
            f"        shape[{axis}] = {_c_dim(dim, names)};\n" for axis, dim in enumerate(dims)
        )
        cases.append(f"    case {position}:\n{lines}        return AUTOTUNE_OK;\n")
    more_indices = ", " if indices else ""
    return f"""
static const char *const size_names[{count + 1}] = {{{", ".join(map(c_string, names))}{more}0}};
static const int64_t size_uppers[{count + 1}] = {{{
        ", ".join(str(size.upper) for size in plan.sizes)
    }{more}0}};
static const int32_t input_size_indices[{len(indices) + 1}] = {{{", ".join(indices)}{
        more_indices
    }0}};

int32_t autotune_num_sizes(void) {{ return {count}; }}
const char *autotune_size_name(int32_t i) {{ return i >= 0 && i < {count} ? size_names[i] : 0; }}
int64_t autotune_size_upper(int32_t i) {{ return i >= 0 && i < {count} ? size_uppers[i] : -1; }}
const int32_t *autotune_input_sizes(int32_t i) {{
    return i >= 0 && i < {len(plan.inputs)} ? input_size_indices + input_starts[i] : 0;
}}

static inline int64_t floordiv64(int64_t a, int64_t b) {{
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r ^ b) < 0)) ? q - 1 : q;
}}
static inline int64_t floormod64(int64_t a, int64_t b) {{ return a - floordiv64(a, b) * b; }}
static inline int64_t min64(int64_t a, int64_t b) {{ return a < b ? a : b; }}
static inline int64_t max64(int64_t a, int64_t b) {{ return a > b ? a : b; }}

static int32_t check_sizes(const int64_t *sizes) {{
    if ({count} == 0) return AUTOTUNE_OK;
    if (!sizes) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    for (int32_t i = 0; i < {count}; ++i)
        if (sizes[i] < 1 || sizes[i] > size_uppers[i]) return AUTOTUNE_ERROR_SIZE_OUT_OF_RANGE;
    return AUTOTUNE_OK;
}}

int32_t autotune_output_shape_at(int32_t index, const int64_t *sizes, int64_t *shape) {{
    if (!shape) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    int32_t status = check_sizes(sizes);
    if (status != AUTOTUNE_OK) return status;
    switch (index) {{
{"".join(cases)}    default:
        return AUTOTUNE_ERROR_BAD_INDEX;
    }}
}}
"""


def _c_dim(dim: str, names: Sequence[str]) -> str:
    """A dim's text (`(n * 6)`) as C over the size values `sizes[i]` (`names`: the size
    variables in order); `//` and `%` floor, as in the compiler (sizes are positive, but
    a dim such as `(n - 2) // 3` need not be)."""
    return _c_expr(parse_dim(dim), names)


def _c_expr(expr: PrimExpr, names: Sequence[str]) -> str:
    if isinstance(expr, IntImm):
        return f"INT64_C({expr.value})"
    if isinstance(expr, SizeVar):
        return f"sizes[{names.index(expr.name)}]"
    assert isinstance(expr, Binary), expr
    lhs, rhs = _c_expr(expr.lhs, names), _c_expr(expr.rhs, names)
    infix = {"add": "+", "sub": "-", "mul": "*"}
    if expr.op in infix:
        return f"({lhs} {infix[expr.op]} {rhs})"
    helper = {"floordiv": "floordiv64", "floormod": "floormod64", "min": "min64", "max": "max64"}
    return f"{helper[expr.op]}({lhs}, {rhs})"


def abi_source(plan: ModelPlan[Any]) -> str:
    """The C source of the ABI functions and metadata tables of `plan`'s model."""
    workspace = align_up(plan.memory.workspace_bytes)
    weights = plan.weights.padded_bytes
    return f"""/* Generated by autotune: the C ABI of one compiled model (see model.h). */
#include <stdint.h>
#include <stdlib.h>

#include "model.h"

struct autotune_model {{
    void *workspace;
    const void *weights;
}};

extern void {ENTRY_SYMBOL}(void *workspace, const void *weights, const void *const *inputs,
                          void *const *outputs, const int64_t *sizes);
{_tables("input", plan.inputs)}{_tables("output", plan.outputs)}{_size_source(plan)}
int32_t autotune_abi_version(void) {{ return {ABI_VERSION}; }}
int64_t autotune_workspace_bytes(void) {{ return {workspace}; }}
int64_t autotune_weights_bytes(void) {{ return {weights}; }}

autotune_model *autotune_create(const void *weights) {{
    if (!weights || (uintptr_t)weights % {WEIGHTS_ALIGN_BYTES} != 0) return 0;
    autotune_model *model = calloc(1, sizeof(autotune_model));
    if (!model) return 0;
    model->weights = weights;
    if ({workspace} > 0) {{
        model->workspace = aligned_alloc(64, {workspace});
        if (!model->workspace) {{
            free(model);
            return 0;
        }}
    }}
    return model;
}}

int32_t autotune_run_sized(autotune_model *model, const int64_t *sizes, const void *const *inputs,
                           void *const *outputs) {{
    if (!model || (!inputs && {len(plan.inputs)} > 0) || (!outputs && {len(plan.outputs)} > 0))
        return AUTOTUNE_ERROR_NULL_ARGUMENT;
    for (int32_t i = 0; i < {len(plan.inputs)}; ++i)
        if (!inputs[i]) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    for (int32_t i = 0; i < {len(plan.outputs)}; ++i)
        if (!outputs[i]) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    int32_t status = check_sizes(sizes);
    if (status != AUTOTUNE_OK) return status;
    {ENTRY_SYMBOL}(model->workspace, model->weights, inputs, outputs, sizes);
    return AUTOTUNE_OK;
}}

int32_t autotune_run(autotune_model *model, const void *const *inputs, void *const *outputs) {{
    if ({len(plan.sizes)} > 0) return AUTOTUNE_ERROR_SIZES_REQUIRED;
    return autotune_run_sized(model, 0, inputs, outputs);
}}

void autotune_destroy(autotune_model *model) {{
    if (!model) return;
    free(model->workspace);
    free(model);
}}
"""


def export_map() -> str:
    """A linker version script exporting the ABI functions and hiding everything else."""
    names = "".join(f"    {name};\n" for name in EXPORTED_SYMBOLS)
    return f"{{\n  global:\n{names}  local: *;\n}};\n"
