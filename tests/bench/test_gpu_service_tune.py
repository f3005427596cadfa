"""The GPU tuning stage's service run (bench/gpu_service_tune.py), on the CPU: a real
`autotune serve`, a real worker and a job submitted with `autotune submit`."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bench.gpu_service_tune import Service, tune_workload
from codegen.llvm import host_target
from tests.service.processes import FAST_ENV


@pytest.mark.slow
def test_a_workload_is_tuned_through_the_service_and_its_records_come_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in FAST_ENV.items():
        monkeypatch.setenv(key, value)
    service = Service(tmp_path, device="cpu")
    workload = {"name": "matmul_48", "op": "matmul", "M": 48, "N": 48, "K": 48}
    try:
        service.start()
        row, records = tune_workload(
            service, workload, str(host_target()), argparse.Namespace(trials=6, time_limit_s=60)
        )
    finally:
        service.stop()
    assert row["state"] == "completed", (row, service.log("worker"))
    assert 0 < row["trials_done"] <= 6
    assert records and all(record["job"] == row["job"] for record in records)
    assert row["statuses"].get("ok", 0) >= 1
    assert row["best_record_gflops"] > 0 and row["best_trace"]["steps"]
    assert all(process.poll() is not None for process in service.processes)
