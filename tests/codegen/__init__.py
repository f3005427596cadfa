"""Tests of the code generators."""
