"""The loop IR (TIR-like): scalar expressions, buffers, statements, and their printers."""
