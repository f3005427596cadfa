"""Where the tests find the `autotune` console script."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def autotune_script() -> str:
    """The `autotune` script installed beside this interpreter (a virtual environment's
    bin folder), else the one first on PATH (a host whose interpreter's folder is
    read-only, such as the GPU check's, puts it there), else the path beside the
    interpreter, so that a missing script fails the test that runs it by name."""
    beside = Path(sys.executable).parent / "autotune"
    if beside.is_file():
        return str(beside)
    return shutil.which("autotune") or str(beside)


AUTOTUNE = autotune_script()
