"""Tests of the LLVM (CPU) backend."""
