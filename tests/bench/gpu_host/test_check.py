"""The GPU check's plan, stages, deadline and outputs, run here with stand-in stages."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from bench.gpu_host import check
from bench.gpu_host.check import (
    STAGES,
    Context,
    ScriptRun,
    Stage,
    StageFailed,
    junit_counts,
    run_logged,
    run_stages,
)

ROOT = Path(__file__).resolve().parents[3]


def _context(tmp_path: Path, deadline_s: float = 60.0, quick: bool = False) -> Context:
    ctx = Context(
        out=tmp_path / "out",
        work=tmp_path / "work",
        bundle=tmp_path / "bundle",
        python=sys.executable,
        quick=quick,
        deadline=time.monotonic() + deadline_s,
    )
    ctx.out.mkdir(parents=True)
    ctx.logs.mkdir(parents=True)
    return ctx


def test_the_dry_run_lists_every_stage_and_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert check.main(["--dry-run"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == [stage.name for stage in STAGES]
    assert check.main(["--dry-run", "--only", "tune"]) == 0  # setup always comes first
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == ["setup", "tune"]


@pytest.mark.parametrize(
    "stage", [s for s in STAGES if isinstance(s.run, ScriptRun)], ids=lambda s: s.name
)
@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_every_stage_script_takes_the_arguments_it_is_given(
    stage: Stage, quick: bool, tmp_path: Path
) -> None:
    assert isinstance(stage.run, ScriptRun)
    argv = stage.run.argv(_context(tmp_path, quick=quick), tmp_path / "figures.json")
    assert (ROOT / stage.run.script).is_file()
    # argparse checks every option and value, then --help stops it before any work.
    done = subprocess.run(
        [*argv, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    options = {arg for arg in argv[2:] if arg.startswith("--")}
    assert all(option in done.stdout for option in options), (options, done.stdout)


def _stand_in(name: str, run: Any, min_s: float = 0.0) -> Stage:
    return Stage(name, f"stand-in {name}", run, min_s)


def _python_stage(code: str, timeout_s: float) -> ScriptRun:
    """A ScriptRun of `python -c CODE` (the --json argument lands in sys.argv[2])."""
    return ScriptRun("-c", (code,), (code,), timeout_s, timeout_s)


def test_a_failed_and_a_timed_out_stage_cost_only_themselves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes_then_fails = (
        "import json, sys; json.dump({'rows': [1]}, open(sys.argv[-1], 'w')); sys.exit(3)"
    )
    stages = (
        _stand_in("setup", lambda ctx: {"host": "here"}),
        _stand_in("sleeper", _python_stage("import time; time.sleep(60)", timeout_s=1.5)),
        _stand_in("failing", _python_stage(writes_then_fails, timeout_s=30)),
        _stand_in("raising", lambda ctx: 1 / 0),
        _stand_in(
            "last",
            _python_stage("import json, sys; json.dump({'ok': 1}, open(sys.argv[-1], 'w'))", 30),
        ),
    )
    monkeypatch.setattr(check, "STAGES", stages)
    ctx = _context(tmp_path)
    results = run_stages(ctx, [stage.name for stage in stages])
    assert [(r.name, r.status) for r in results] == [
        ("setup", "ok"),
        ("sleeper", "timeout"),
        ("failing", "failed"),
        ("raising", "failed"),
        ("last", "ok"),
    ]
    assert results[1].seconds < 20 and "ran past" in results[1].detail
    assert "exited 3" in results[2].detail and results[2].figures == {"rows": [1]}
    assert "ZeroDivisionError" in results[3].detail
    assert results[4].figures == {"ok": 1}
    # What comes back: three files (the records only when a stage wrote some).
    assert sorted(p.name for p in ctx.out.iterdir()) == [
        "gpu_host_check.json",
        "gpu_host_check.txt",
        "logs.tar.gz",
    ]
    summary = (ctx.out / "gpu_host_check.txt").read_text()
    assert "sleeper   timeout" in summary and "last      ok" in summary
    saved = json.loads((ctx.out / "gpu_host_check.json").read_text())
    assert [stage["status"] for stage in saved["stages"]][-1] == "ok"
    with tarfile.open(ctx.out / "logs.tar.gz") as archive:
        names = archive.getnames()
    assert "logs/sleeper.log" in names and "logs/last.json" in names


def test_a_fatal_setup_failure_skips_the_rest_and_a_pycuda_failure_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_install(ctx: Context) -> dict[str, Any]:
        raise StageFailed("pip install failed")

    def no_gpu(ctx: Context) -> dict[str, Any]:
        raise StageFailed("pycuda does not start", figures={"host": "here"}, fatal=False)

    after = _stand_in("after", lambda ctx: {"ran": True})
    monkeypatch.setattr(check, "STAGES", (_stand_in("setup", broken_install), after))
    results = run_stages(_context(tmp_path / "a"), ["setup", "after"])
    assert [(r.status, r.detail) for r in results] == [
        ("failed", "pip install failed"),
        ("skipped", "setup failed"),
    ]
    monkeypatch.setattr(check, "STAGES", (_stand_in("setup", no_gpu), after))
    results = run_stages(_context(tmp_path / "b"), ["setup", "after"])
    assert [r.status for r in results] == ["failed", "ok"]
    assert results[0].figures == {"host": "here"}


def test_the_deadline_skips_the_stages_that_cannot_fit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stages = (_stand_in("setup", lambda ctx: {}), _stand_in("long", lambda ctx: {}, min_s=3600))
    monkeypatch.setattr(check, "STAGES", stages)
    results = run_stages(_context(tmp_path, deadline_s=120), ["setup", "long"])
    assert results[1].status == "skipped" and "before the deadline" in results[1].detail


def test_a_command_past_the_deadline_is_not_started(tmp_path: Path) -> None:
    ctx = _context(tmp_path, deadline_s=0.5)
    with pytest.raises(StageFailed, match="no time left") as raised:
        run_logged(ctx, "late", [sys.executable, "-c", "pass"], timeout_s=60)
    assert raised.value.status == "timeout"


def test_junit_counts_read_passes_failures_and_skips_for_want_of_a_gpu(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    cases = [
        '<testcase classname="tests.a" name="test_ok"/>',
        '<testcase classname="tests.a" name="test_bad"><failure message="no"/></testcase>',
        '<testcase classname="tests.a" name="test_err"><error message="boom"/></testcase>',
        '<testcase classname="tests.b" name="test_gpu">'
        '<skipped message="needs pycuda and a CUDA GPU"/></testcase>',
        '<testcase classname="tests.b" name="test_other">'
        '<skipped message="pycuda is installed"/></testcase>',
    ]
    report.write_text(f"<testsuites><testsuite>{''.join(cases)}</testsuite></testsuites>")
    assert junit_counts(report) == {
        "passed": 1,
        "failed": 2,
        "skipped": 2,
        "skipped_for_want_of_a_gpu": 1,
        "failing": ["tests.a::test_bad", "tests.a::test_err"],
    }
    assert junit_counts(tmp_path / "missing.xml") == {"report": "missing"}


def _run_probe(*args: str) -> Any:
    done = subprocess.run(
        [sys.executable, str(check.PROBES), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fallback_wheel_is_installed_only_where_the_host_does_not_satisfy_it(
    tmp_path: Path,
) -> None:
    manifest = tmp_path / "MANIFEST.json"
    manifest.write_text(
        json.dumps(
            {
                "files": [
                    {"name": "packaging", "filename": "old.whl", "fallback": True,
                     "requirements": ["x 1: packaging>=1"]},
                    {"name": "packaging", "filename": "new.whl", "fallback": True,
                     "requirements": ["x 1: packaging>=1", "y 2: packaging>=9999"]},
                    {"name": "no-such-dist-here", "filename": "absent.whl", "fallback": True,
                     "requirements": ["z 3: no-such-dist-here"]},
                    {"name": "fastapi", "filename": "always.whl", "fallback": False,
                     "requirements": ["autotune: fastapi"]},
                ],
                "left_to_host": {"numpy": ["autotune: numpy>=2.0"]},
            }
        )
    )  # fmt: skip
    assert _run_probe("fallbacks-needed", str(manifest)) == ["new.whl", "absent.whl"]
    verified = _run_probe("verify", str(manifest), "numpy", "no-such-dist-here")
    assert verified["versions"]["numpy"] and verified["versions"]["no-such-dist-here"] is None
    unmet = verified["unmet"]
    assert any(u.startswith("packaging>=9999: ") and u.endswith(" installed") for u in unmet)
    assert "no-such-dist-here: missing" in unmet
    # The project's own requirements are met here, but for the GPU extra's pycuda.
    others = {u for u in unmet if not u.startswith(("packaging", "no-such-dist-here"))}
    assert others <= {f"{r}: missing" for r in ("pycuda>=2024.1",)}, others
