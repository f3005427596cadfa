"""The GPU backend: loop IR to CUDA C with launch metadata, compiled by nvcc or NVRTC.

`build_cuda(func, target)` returns a `CudaModule` (source, launch metadata, stage texts);
targets are strings like `cuda -arch=sm_90` (`parse_cuda_target`; `resolve_cuda_target`
also takes plain `cuda`, the local GPU's architecture). `runtime.py` loads and
times a module on a GPU through pycuda (an optional dependency, imported lazily).
"""

from codegen.cuda.build import CudaModule, GpuLimitError, build_cuda
from codegen.cuda.target import (
    CudaTarget,
    parse_cuda_target,
    resolve_cuda_target,
)

__all__ = [
    "CudaModule",
    "CudaTarget",
    "GpuLimitError",
    "build_cuda",
    "parse_cuda_target",
    "resolve_cuda_target",
]
