"""Typed errors raised by code generation, compilation and kernel calls."""

from __future__ import annotations

from ir.errors import AutotuneError


class TargetError(AutotuneError, ValueError):
    """A target string is malformed, names an unknown kind, or has an unknown option."""


class CodegenError(AutotuneError):
    """Loop IR cannot be compiled for the target (unsupported construct, bad types)."""


class KernelArgumentError(AutotuneError, ValueError):
    """A compiled kernel was called with arrays that do not match its buffer parameters."""
