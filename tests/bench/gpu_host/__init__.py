"""Tests of the GPU bundle and the GPU check, on a machine without a GPU."""
