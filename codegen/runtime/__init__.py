"""Running compiled artifacts without the compiler: `loader.py` needs only numpy, ctypes and
the standard library, and may be copied next to an artifact on its own."""
