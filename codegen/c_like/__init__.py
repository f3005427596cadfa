"""C-like code generation shared by the C-style backends (CUDA today)."""
