"""Regenerate the golden files: `make golden` (review the diff before committing)."""

from __future__ import annotations

from tests.golden.cases import CASES, FILES, golden_path, render


def main() -> None:
    """Write every case's stage texts."""
    FILES.mkdir(parents=True, exist_ok=True)
    for case in CASES:
        for stage, text in render(case).items():
            golden_path(case, stage).write_text(text)
            print(f"wrote {golden_path(case, stage).relative_to(FILES.parent.parent.parent)}")


if __name__ == "__main__":
    main()
