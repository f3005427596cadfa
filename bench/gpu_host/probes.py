"""The GPU check's probes (`bench/gpu_host/check.py`), run as their own processes in the
environment they inspect, each printing one JSON line:

    python3 bench/gpu_host/probes.py fallbacks-needed MANIFEST
        (the host's Python) the bundled fallback wheels the host's own packages do not
        satisfy: the file names to install
    python3 bench/gpu_host/probes.py verify MANIFEST [DIST ...]
        (the stage environment, from the repository's root) every requirement of the
        project and of the bundle checked against what is installed: the unmet ones, and
        the installed version of each DIST
    python3 bench/gpu_host/probes.py pycuda
        (the stage environment) pycuda imports and its driver starts: the device's facts

Standard library and `packaging` only: nothing else may be installed yet.
"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# A distribution the bundle installs under another name than its requirement's.
_INSTALLED_AS = {"xgboost": "xgboost-cpu"}


def _requirement_texts(lines: Sequence[str]) -> list[str]:
    """The requirements of a manifest's "who: requirement" lines."""
    return [line.split(": ", 1)[1] for line in lines]


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def fallbacks_needed(manifest: dict[str, Any]) -> list[str]:
    """The file names of the fallback wheels whose package the host lacks or has at a
    version that some requirement refuses."""
    from packaging.requirements import Requirement

    need = []
    for item in manifest["files"]:
        if not item.get("fallback"):
            continue
        have = _version(item["name"])
        specifiers = [
            Requirement(text).specifier for text in _requirement_texts(item["requirements"])
        ]
        if have is None or not all(s.contains(have, prereleases=True) for s in specifiers):
            need.append(item["filename"])
    return need


def verify(manifest: dict[str, Any], pyproject: Path, reported: Sequence[str]) -> dict[str, Any]:
    """The project's requirements (its GPU extra included) and the bundle's that the
    installed packages do not meet ("text: missing" or "text: VERSION installed"), and
    the installed version of each `reported` distribution (None when absent)."""
    from packaging.requirements import Requirement

    project = tomllib.loads(pyproject.read_text())["project"]
    texts = [*project["dependencies"], *project["optional-dependencies"]["gpu"]]
    for item in manifest["files"]:
        texts += _requirement_texts(item["requirements"])
    for lines in manifest["left_to_host"].values():
        texts += _requirement_texts(lines)
    unmet = []
    for text in dict.fromkeys(texts):
        requirement = Requirement(text)
        name = _INSTALLED_AS.get(requirement.name.lower(), requirement.name)
        have = _version(name) or _version(requirement.name)
        if have is None:
            unmet.append(f"{text}: missing")
        elif not requirement.specifier.contains(have, prereleases=True):
            unmet.append(f"{text}: {have} installed")
    return {"unmet": unmet, "versions": {name: _version(name) for name in reported}}


def pycuda_facts() -> dict[str, Any]:
    """The first CUDA device's name, capability and count, and the driver's and pycuda's
    CUDA versions, as pycuda sees them once its driver has started."""
    import pycuda.driver as driver  # type: ignore[import-not-found]

    driver.init()
    device = driver.Device(0)
    return {
        "device": device.name(),
        "count": driver.Device.count(),
        "driver_version": driver.get_driver_version(),
        "compiled_cuda": ".".join(map(str, driver.get_version())),
        "capability": ".".join(map(str, device.compute_capability())),
    }


def main(argv: Sequence[str]) -> int:
    """Run the probe `argv` names and print its JSON line."""
    if not argv or argv[0] not in ("fallbacks-needed", "verify", "pycuda"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "pycuda":
        result: Any = pycuda_facts()
    else:
        manifest = json.loads(Path(argv[1]).read_text())
        if argv[0] == "fallbacks-needed":
            result = fallbacks_needed(manifest)
        else:
            result = verify(manifest, Path("pyproject.toml"), argv[2:])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
