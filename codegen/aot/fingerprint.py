"""The compiler's fingerprint: which code builds an artifact.

An artifact's bytes follow from its model, target and records, and from the compiler that
turns them into code (default schedules, lowering, code generation). A cache of artifacts
keyed by the inputs alone would keep serving a build of older code after an upgrade; the
package version does not tell (it changes by hand, releases apart). The fingerprint is the
sha256 of the compiler's own sources, the `ir` and `codegen` packages, as installed.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

COMPILER_PACKAGES = ("ir", "codegen")


@functools.cache
def compiler_fingerprint() -> str:
    """The sha256 of every source file of the compiler's packages (their paths and bytes)."""
    root = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for package in COMPILER_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
