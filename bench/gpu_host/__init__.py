"""The GPU host check: the bundle made here, and the one command run there."""
