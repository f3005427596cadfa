"""Ahead-of-time compilation of a whole model into a deployable artifact.

    build_artifact(fn, target, chooser, out_dir):
      schedules.py  each fused function's schedule: a tuned record, or the default (a miss)
      plan.py       kernels in call order; weights (layout rewrites applied); a static
                    memory plan placing every intermediate tensor in one workspace
      module.py     every kernel and the entry function linked into one LLVM module
      link.py       the module's object + the C ABI -> model.so (cc)
      weights.py    the weights blob (weights.bin), which the library reads in place
      package.py    manifest.json + model.so + model.h + weights.bin -> a deterministic .tar.gz

The artifact runs with `codegen/runtime/loader.py` (numpy + ctypes only) or from C
through the ABI declared in its `model.h`.

For a `cuda ...` target, `build_cuda_artifact` (cuda_build.py) packs PTX, the weights and a
launch plan instead of a library; `codegen/runtime/cuda_loader.py` (numpy + pycuda) runs it.
"""

from codegen.aot.build import ArtifactResult, build_model_artifact
from codegen.aot.cuda_build import build_cuda_artifact
from codegen.aot.schedules import ScheduleChoice, ScheduleChooser, TaskCoverage

__all__ = [
    "ArtifactResult",
    "ScheduleChoice",
    "ScheduleChooser",
    "TaskCoverage",
    "build_cuda_artifact",
    "build_model_artifact",
]
