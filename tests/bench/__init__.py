"""Tests of the benchmarks and GPU-host tools that run without a GPU."""
