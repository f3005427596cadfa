"""Shared pytest fixtures for the whole test suite."""
