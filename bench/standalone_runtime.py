"""The runtime folder (`codegen/runtime/`) imported on its own as the package `runtime`, as a
user who copied it next to an artifact imports it: nothing else of autotune is loaded (the
benchmarks' runner processes measure the loader's time and memory alone)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

RUNTIME = Path(__file__).resolve().parent.parent / "codegen" / "runtime"


def runtime_module(name: str) -> ModuleType:
    """`runtime.<name>` (e.g. "loader") from the runtime folder, imported as a package."""
    if "runtime" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "runtime", RUNTIME / "__init__.py", submodule_search_locations=[str(RUNTIME)]
        )
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules["runtime"] = package
        spec.loader.exec_module(package)
    return importlib.import_module(f"runtime.{name}")
