"""The graph IR: immutable expression nodes, types, the op table, passes and printers."""
