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

ABI_VERSION = 2
WEIGHTS_ALIGN_BYTES = 64
EXPORTED_SYMBOLS = (
    "autotune_abi_version",
    "autotune_workspace_bytes",
    "autotune_weights_bytes",
    "autotune_create",
    "autotune_run",
    "autotune_destroy",
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


MODEL_HEADER = r"""/* The C ABI of an autotune model artifact (model.so), version 2.
 *
 * The model's weights are the bytes of the artifact's weights.bin: map that file (mmap)
 * or read it into memory aligned to 64 bytes, and hand it to autotune_create. A model
 * handle owns its workspace and borrows the weights, which must stay unchanged until it
 * is destroyed; several handles may share one copy of the weights. Run a handle from one
 * thread at a time (create one handle per thread to run in parallel). Arrays are dense,
 * C order, native byte order, of exactly the shapes and dtypes the metadata functions
 * report; outputs must not overlap inputs. The dtype strings are numpy's names
 * ("float32", "int64", ...).
 */
#ifndef AUTOTUNE_MODEL_H
#define AUTOTUNE_MODEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AUTOTUNE_ABI_VERSION 2
#define AUTOTUNE_WEIGHTS_ALIGN 64
#define AUTOTUNE_OK 0
#define AUTOTUNE_ERROR_NULL_ARGUMENT (-1)

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
 * Returns AUTOTUNE_OK, or AUTOTUNE_ERROR_NULL_ARGUMENT when a pointer is NULL. */
int32_t autotune_run(autotune_model *model, const void *const *inputs, void *const *outputs);
void autotune_destroy(autotune_model *model);

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

extern void {ENTRY_SYMBOL}(
    void *workspace, const void *weights, const void *const *inputs, void *const *outputs);
{_tables("input", plan.inputs)}{_tables("output", plan.outputs)}
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

int32_t autotune_run(autotune_model *model, const void *const *inputs, void *const *outputs) {{
    if (!model || (!inputs && {len(plan.inputs)} > 0) || (!outputs && {len(plan.outputs)} > 0))
        return AUTOTUNE_ERROR_NULL_ARGUMENT;
    for (int32_t i = 0; i < {len(plan.inputs)}; ++i)
        if (!inputs[i]) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    for (int32_t i = 0; i < {len(plan.outputs)}; ++i)
        if (!outputs[i]) return AUTOTUNE_ERROR_NULL_ARGUMENT;
    {ENTRY_SYMBOL}(model->workspace, model->weights, inputs, outputs);
    return AUTOTUNE_OK;
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
