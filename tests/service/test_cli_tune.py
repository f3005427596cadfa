"""`autotune tune` and `autotune run --records`, as real subprocesses."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from codegen.target import canonical_target, parse_target
from tests.support.cli import AUTOTUNE
from tests.support.onnx_models import run_onnxruntime
from tuner.options import TuneOptions


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AUTOTUNE, *args], capture_output=True, text=True, timeout=900, check=False
    )


def _small_model(path: Path) -> onnx.ModelProto:
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.normal(0, 0.2, (8, 4, 3, 3)).astype(np.float32), "w")
    dense = numpy_helper.from_array(rng.normal(0, 0.2, (10, 8 * 6 * 6)).astype(np.float32), "d")
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "d"], ["y"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(
        nodes,
        "small",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [weight, dense],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return model


def test_tune_then_run_with_records(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    model = _small_model(model_path)
    records = tmp_path / "run.jsonl"
    first = _run("tune", str(model_path), "--trials", "12", "--records", str(records), "--json")
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert summary["measured"] > 0
    lines = [json.loads(line) for line in records.read_text().splitlines() if line.strip()]
    assert len(lines) >= summary["measured"]
    assert {"workload_key", "target", "trace", "costs_s", "status"} <= set(lines[0])
    # Resume: the budget is spent, nothing new is measured.
    again = _run("tune", str(model_path), "--trials", "12", "--records", str(records), "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["measured"] == 0
    assert "the whole budget of --trials 12: raise --trials" in again.stderr
    # Run with the tuned records: same numbers as onnxruntime.
    data = np.random.default_rng(1).normal(size=(1, 4, 6, 6)).astype(np.float32)
    np.save(tmp_path / "x.npy", data)
    out = tmp_path / "out.npz"
    run = _run(
        "run",
        str(model_path),
        "--input",
        f"x={tmp_path / 'x.npy'}",
        "--records",
        str(records),
        "--output",
        str(out),
    )
    assert run.returncode == 0, run.stderr
    expected = run_onnxruntime(model, {"x": data}, "y")
    np.testing.assert_allclose(np.load(out)["output_0"], expected, rtol=1e-4, atol=1e-5)
    # It says how many kernels the records gave a schedule: all three, since tuning first
    # measures every task's default schedule (the survey), however small the budget.
    assert f"{records}: tuned schedules for 3 of 3 kernels" in run.stderr
    # Records of another target (here: another core count) give none, and it says why.
    other = tmp_path / "other.jsonl"
    other.write_text(records.read_text().replace("-num-cores=", "-num-cores=7"))
    elsewhere = _run("run", str(model_path), "--input", f"x={tmp_path / 'x.npy'}",
                     "--records", str(other), "--json")  # fmt: skip
    assert elsewhere.returncode == 0, elsewhere.stderr
    assert f"{other}: tuned schedules for 0 of 3 kernels" in elsewhere.stderr
    assert "-num-cores=7" in elsewhere.stderr and "core count included" in elsewhere.stderr
    summary = json.loads(elsewhere.stdout)
    assert summary["tuned_kernels"] == 0 and summary["latency_ms"]["median"] is None
    missing = tmp_path / "missing.jsonl"
    absent = _run("run", str(model_path), "--input", f"x={tmp_path / 'x.npy'}",
                  "--records", str(missing))  # fmt: skip
    assert absent.returncode == 1 and "Traceback" not in absent.stderr
    assert f"--records {missing}: no such file" in absent.stderr


def test_tune_on_cuda_without_pycuda_is_one_clear_error(tmp_path: Path) -> None:
    if importlib.util.find_spec("pycuda") is not None:
        pytest.skip("pycuda is installed: tuning would look for a GPU")
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    records = tmp_path / "r.jsonl"
    result = _run(
        "tune", str(model_path), "--records", str(records), "--trials", "4",
        "--target", "cuda -arch=sm_90",
    )  # fmt: skip
    assert result.returncode == 1
    assert "pycuda is not installed: pip install autotune[gpu]" in result.stderr
    assert "Traceback" not in result.stderr
    assert not records.exists()
    plain = _run(
        "tune", str(model_path), "--records", str(records), "--trials", "4", "--target", "cuda"
    )
    assert plain.returncode == 1 and "Traceback" not in plain.stderr
    assert "names no architecture" in plain.stderr and "-arch=sm_90" in plain.stderr


def test_tune_rejects_bad_arguments(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    for args, fragment in (
        (("--trials", "0"), "--trials"),
        (("--trials", "4", "--target", "opencl"), "unsupported target"),
        (("--trials", "4", "--feature-workers", "-1"), "--feature-workers must be a whole number"),
        (("--trials", "4", "--time-limit", "-1"), "--time-limit must be a positive number"),
        (("--trials", "4", "--time-limit", "0"), "--time-limit must be a positive number"),
    ):
        result = _run("tune", str(model_path), "--records", str(tmp_path / "r.jsonl"), *args)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        assert fragment in result.stderr
        assert not (tmp_path / "r.jsonl").exists()
    folder = _run("tune", str(model_path), "--records", str(tmp_path), "--trials", "4")
    assert folder.returncode == 1 and "Traceback" not in folder.stderr
    assert f"--records {tmp_path}: is a directory" in folder.stderr
    # A binary file given as records is refused by line and left as it was.
    binary_path = tmp_path / "binary.jsonl"
    binary_path.write_bytes(b"\x08\x07\xad\xff\x12\n" * 3)
    binary = _run("tune", str(model_path), "--records", str(binary_path), "--trials", "4")
    assert binary.returncode == 1 and "Traceback" not in binary.stderr
    assert f"{binary_path}:1: not UTF-8 text" in binary.stderr
    assert binary_path.read_bytes() == b"\x08\x07\xad\xff\x12\n" * 3


def test_tune_batch_size_spreads_a_small_budget_over_the_tasks(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    records = tmp_path / "run.jsonl"
    refused = _run("tune", str(model_path), "--trials", "3", "--records", str(records),
                   "--batch-size", "0")  # fmt: skip
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "autotune tune: error: --batch-size must be a whole number from 1 to 256, got 0"
    )
    assert not records.exists()
    # With the default batch (16) the first task would take all 3 trials; with 1, each
    # of the three tasks gets one, measured in three batches.
    tuned = _run("tune", str(model_path), "--trials", "3", "--records", str(records),
                 "--batch-size", "1", "--search", "random", "--feature-workers", "0",
                 "--json")  # fmt: skip
    assert tuned.returncode == 0, tuned.stderr
    summary = json.loads(tuned.stdout)
    assert [task["trials"] for task in summary["tasks"]] == [1, 1, 1]
    assert len([line for line in tuned.stderr.splitlines() if line.startswith("[")]) == 3
    lines = [json.loads(line) for line in records.read_text().splitlines() if line.strip()]
    measured_keys = {line["workload_key"] for line in lines}
    assert measured_keys == {task["key"] for task in summary["tasks"]}


def test_tune_on_cold_caches(tmp_path: Path) -> None:
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    records = tmp_path / "cold.jsonl"
    result = _run(
        "tune", str(model_path), "--trials", "4", "--records", str(records), "--flush-cache"
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in records.read_text().splitlines() if line.strip()]
    assert lines and all(line["status"] == "ok" for line in lines), lines
    # Every candidate is timed cold; the in-model check (step 5) adds its own timings
    # where a tuned kernel beat its default, which depends on this machine's speed.
    assert {line["timing"] for line in lines} - {"in_model"} == {"cold"}


def test_flush_cache_reaches_the_measurement_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import service.cli.tune_command as tune_command

    seen: list[TuneOptions] = []

    def capture(
        fn: object, target: str, options: TuneOptions, *args: object, **kw: object
    ) -> object:
        seen.append(options)
        raise RuntimeError("stop here")

    monkeypatch.setattr(tune_command, "tune_model", capture)
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    for flush in (True, False, None):
        options = tune_command.tune_options_from_flags(
            parse_target("llvm"), 4, None, "random", 4, flush, None
        )
        with pytest.raises(RuntimeError, match="stop here"):
            tune_command.run_tune(
                model_path, {}, parse_target("llvm"), options, tmp_path / "r.jsonl", True
            )
    # Unless told, a CPU tunes on cold caches, and a GPU on warm ones.
    assert [options.measure.flush_cache for options in seen] == [True, False, True]
    on_gpu = tune_command.tune_options_from_flags(
        parse_target("cuda -arch=sm_90"), 4, None, "random", 4, None, None
    )
    assert on_gpu.measure.flush_cache is False


def test_tune_refuses_a_cpu_whose_vectors_this_host_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tuning measures kernels here: an AVX-512 target on an AVX2 host (a host made to
    look like one, as CI's may have AVX-512) is one clear error before anything runs."""
    import service.cli.tune_command as tune_command
    from codegen.llvm import parse_cpu_target

    monkeypatch.setattr(tune_command, "host_target", lambda: parse_cpu_target("llvm -mcpu=haswell"))
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    records = tmp_path / "r.jsonl"
    with pytest.raises(tune_command.TuneError, match=r"512-bit vectors .* 256-bit ones"):
        tune_command.run_tune(
            model_path,
            {},
            parse_cpu_target("llvm -mcpu=skylake-avx512"),
            TuneOptions(trials=4),
            records,
            True,
        )
    assert not records.exists()


def test_tune_fails_when_no_candidate_of_a_task_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A task whose every candidate failed (here: killed by SIGILL) ends the command with
    status 1 and a line saying how they failed; the records stay."""
    import service.cli.tune_command as tune_command
    from tuner.records import Record, RecordLog
    from tuner.tune import TaskSummary, TuneResult

    records = tmp_path / "r.jsonl"
    target = canonical_target("llvm")

    def failing_tune(*args: object, **kwargs: object) -> TuneResult:
        trace = {"version": 1, "steps": []}
        error = "child killed by signal SIGILL"
        RecordLog(records).append(
            Record("k" * 64, target, trace, [], "runtime_error", error, time=float(t))
            for t in range(2)
        )
        task = TaskSummary("fused_conv", "k" * 64, 1, 100, 2, 2, None, None, "budget")
        return TuneResult(tasks=(task,), measured=2, remeasured=0, estimated_latency_s=None)

    monkeypatch.setattr(tune_command, "tune_model", failing_tune)
    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    status = tune_command.run_tune(
        model_path, {}, parse_target("llvm"), TuneOptions(trials=2), records, True
    )
    out, err = capsys.readouterr()
    assert status == 1
    assert (
        "error: task fused_conv: none of its 2 candidates ran correctly (2 runtime_error; "
        "first error: child killed by signal SIGILL)" in err
    )
    assert json.loads(out)["estimated_latency_ms"] is None
    assert len(records.read_text().splitlines()) == 2


def test_progress_shows_gflops_or_the_time_of_a_task_without_arithmetic() -> None:
    from service.cli.tune_command import _progress_line
    from tuner.tune import TuneProgress

    def line(gflops: float | None, cost_s: float | None) -> str:
        progress = TuneProgress(3, "fused_concatenate", 16, 16, 32, 64, cost_s, gflops, 1e-3, 2.0)
        return _progress_line(progress)

    assert "best   140.3 GFLOPS" in line(140.3, 2e-4)
    assert "best    12.5 us" in line(0.0, 12.5e-6)  # no FLOPs: its time instead of 0 GFLOPS
    assert "best       -" in line(None, None)
    widths = {len(line(*each)) for each in [(140.3, 2e-4), (0.0, 12.5e-6), (None, None)]}
    assert len(widths) == 1  # the columns stay aligned


def test_tune_warm_starts_from_and_saves_its_cost_model(tmp_path: Path) -> None:
    """`--cost-model`: the first run saves the model it trained; a run on other records
    starts from it (its saved model holds both runs' candidates); an unreadable file is
    a warning and a fresh start, not a failure."""
    from tuner.cost_model import saved_rows

    model_path = tmp_path / "small.onnx"
    _small_model(model_path)
    cost_model = tmp_path / "model.npz"
    flags = ["--trials", "6", "--search", "random", "--feature-workers", "0", "--no-in-model"]
    first = _run("tune", str(model_path), "--records", str(tmp_path / "a.jsonl"),
                 "--cost-model", str(cost_model), *flags)  # fmt: skip
    assert first.returncode == 0, first.stderr
    after_first = saved_rows(cost_model)
    assert after_first >= 6
    second = _run("tune", str(model_path), "--records", str(tmp_path / "b.jsonl"),
                  "--cost-model", str(cost_model), *flags)  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert saved_rows(cost_model) >= after_first + 6
    cost_model.write_bytes(b"not a model")
    third = _run("tune", str(model_path), "--records", str(tmp_path / "c.jsonl"),
                 "--cost-model", str(cost_model), *flags)  # fmt: skip
    assert third.returncode == 0, third.stderr
    assert "is not a cost model this tuner can read" in third.stderr
    assert saved_rows(cost_model) >= 6
