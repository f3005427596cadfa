"""Lowering: a scheduled TE program becomes a loop IR kernel (PrimFunc)."""

from ir.lower.lower import lower

__all__ = ["lower"]
