"""The command line's own error: an argument that is wrong."""

from ir.errors import AutotuneError


class CliError(AutotuneError):
    """A command-line argument is wrong."""
