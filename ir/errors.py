"""Typed errors raised by the IR layer; every message says what went wrong and where."""

from __future__ import annotations


class AutotuneError(Exception):
    """Base class of every error autotune reports to a user."""


class IRError(AutotuneError):
    """A graph is malformed (wrong node kinds, unbound variables, bad attributes)."""


class TypeInferenceError(AutotuneError):
    """Shapes or dtypes of an op's inputs are inconsistent with its type relation."""


class ModelImportError(AutotuneError):
    """A model could not be imported (bad bytes, failed checks, unsupported content)."""


class UnsupportedOpError(ModelImportError):
    """A model uses an operator (or an attribute value) the frontend does not support."""


class ValueDependentError(UnsupportedOpError):
    """An operand the compiler needs as a constant (a shape, axes, a count) depends on the
    run-time values of graph inputs; `inputs` names them. Binding those inputs' values
    (`values=` at import) specialises the model to them."""

    def __init__(self, message: str, inputs: tuple[str, ...]) -> None:
        super().__init__(message)
        self.inputs = inputs


class ShapeBindingError(ModelImportError):
    """An input shape binding is missing (a symbolic or unknown dimension left unbound),
    malformed (`NAME=DxD` text), or does not fit the model (unknown input, rank or dim)."""


class ScheduleError(AutotuneError):
    """A schedule step is invalid for the program it is applied to; says which step and why."""
