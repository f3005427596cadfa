"""Graph passes: each a function from a graph IR Function to a graph IR Function."""
