"""Running compiled artifacts without the compiler: `loader.py` (with `gzip_stream.py`,
`mapped_segments.py` and `aligned.py`, which it imports relatively) needs only numpy,
ctypes and the standard library, and `cuda_loader.py` numpy and pycuda. The folder imports
nothing else from autotune: copy it next to an artifact, under any package name."""
