"""Tests of the search space."""
