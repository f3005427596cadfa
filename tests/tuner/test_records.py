"""Records: JSON round trip, append-only logs, best selection and malformed input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuner.records import (
    RECORD_VERSION,
    Record,
    RecordError,
    RecordLog,
    compute_candidate_id,
    is_torn_line,
    load_records,
    measured_candidates,
    tuned_record,
)

KEY, OTHER_KEY = "a" * 64, "b" * 64
TARGET = "llvm -mcpu=skylake-avx512 -num-cores=2"


def _trace(factor: int) -> dict[str, Any]:
    step = {"kind": "split", "stage": "s", "axis": "i", "factor": factor, "nparts": None}
    return {"version": 1, "steps": [step]}


def _record(
    factor: int = 4, costs: list[float] | None = None, status: str = "ok", **kw: Any
) -> Record:
    return Record(
        workload_key=kw.pop("workload_key", KEY),
        target=kw.pop("target", TARGET),
        trace=_trace(factor),
        costs_s=[1e-3, 2e-3, 3e-3] if costs is None else costs,
        status=status,
        time=kw.pop("time", 1700000000.0),
        **kw,
    )


def test_record_round_trips_through_json() -> None:
    record = _record(error="", worker="w1", job="j7", time=1700000000.5)
    assert record.version == RECORD_VERSION
    assert set(record.versions) == {"autotune", "llvmlite", "numpy"}
    assert record.candidate_id == compute_candidate_id(KEY, TARGET, _trace(4))
    assert Record.from_json(json.loads(record.dumps())) == record
    bare = _record()
    assert "worker" not in bare.to_json() and Record.from_json(bare.to_json()) == bare
    assert record.median_cost_s == 2e-3


def test_a_record_says_how_it_was_timed() -> None:
    cold = _record(timing="cold")
    assert cold.to_json()["timing"] == "cold"
    assert Record.from_json(json.loads(cold.dumps())) == cold
    # Lines written before records had a timing were timed warm.
    older = {k: v for k, v in cold.to_json().items() if k != "timing"}
    assert Record.from_json(older).timing == "warm"
    with pytest.raises(RecordError, match="unknown record timing 'tepid'"):
        _record(timing="tepid")


def test_candidate_id_depends_on_key_target_and_trace_only() -> None:
    base = compute_candidate_id(KEY, TARGET, _trace(4))
    reordered = {"steps": [dict(reversed(list(_trace(4)["steps"][0].items())))], "version": 1}
    assert compute_candidate_id(KEY, TARGET, reordered) == base
    assert compute_candidate_id(OTHER_KEY, TARGET, _trace(4)) != base
    assert compute_candidate_id(KEY, "llvm -mcpu=znver4 -num-cores=2", _trace(4)) != base
    assert compute_candidate_id(KEY, TARGET, _trace(8)) != base
    assert _record(status="build_error", costs=[]).candidate_id == base


def test_log_is_append_only(tmp_path: Path) -> None:
    log = RecordLog(tmp_path / "sub" / "run.jsonl")
    assert log.load() == []
    first = [_record(4), _record(8, status="timeout", costs=[], error="run timed out")]
    assert log.append(first) == 2
    before = log.path.read_bytes()
    assert log.append([_record(16)]) == 1
    assert log.append([]) == 0
    after = log.path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 3
    assert log.load() == [*first, _record(16)]


def test_append_after_a_torn_line_starts_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(_record(4).dumps() + "\n" + '{"version": 1, "workl')
    RecordLog(path).append([_record(8)])
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and Record.from_json(json.loads(lines[2])) == _record(8)


def test_torn_lines_are_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A writer killed mid-line leaves a torn record, at the end of the log or, once a
    later run appended, inside it: loading skips it, keeps every finished record and warns."""
    path = tmp_path / "run.jsonl"
    path.write_text(_record(4).dumps() + "\n" + _record(16).dumps()[:57])
    assert RecordLog(path).load() == [_record(4)]
    RecordLog(path).append([_record(8)])
    with caplog.at_level("WARNING", logger="tuner.records"):
        assert load_records(path) == [_record(4), _record(8)]
    assert f"{path}:2: skipped a torn record" in caplog.text


@given(cut=st.integers(min_value=0), factor=st.integers(min_value=1, max_value=1 << 40))
def test_every_cut_record_line_is_torn_and_no_whole_one_is(cut: int, factor: int) -> None:
    error = 'a "quoted" {error} \\ [1]'
    line = _record(factor, costs=[], status="runtime_error", error=error).dumps()
    assert not is_torn_line(line)
    assert is_torn_line(line[: 2 + cut % (len(line) - 2)])


def test_load_skips_blank_lines_and_comments() -> None:
    lines = ["# exported by autotune", "", _record(4).dumps(), "   ", _record(8).dumps() + "\n"]
    assert load_records(lines) == [_record(4), _record(8)]


@pytest.mark.parametrize(
    "line, message",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({**_record().to_json(), "status": "great"}), "unknown record status"),
        (json.dumps({**_record().to_json(), "costs_s": "fast"}), "must be a list"),
        (json.dumps({**_record().to_json(), "costs_s": [-1.0]}), "finite positive seconds"),
        (json.dumps({**_record().to_json(), "costs_s": [0.0]}), "finite positive seconds"),
        (json.dumps({**_record().to_json(), "costs_s": []}), "ok result must hold its"),
        (json.dumps({k: v for k, v in _record().to_json().items() if k != "trace"}), "'trace'"),
        (json.dumps({**_record().to_json(), "version": 2}), "newer than this autotune"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(f"# header\n{_record().dumps()}\n{line}\n")
    with pytest.raises(RecordError, match=message) as info:
        load_records(path)
    assert f"{path}:3:" in str(info.value)


def test_a_torn_line_is_skipped_in_a_log_and_refused_in_an_import(tmp_path: Path) -> None:
    whole = _record().dumps()
    lines = [whole, whole[: len(whole) // 2], _record(8).dumps()]
    assert load_records(lines) == [_record(), _record(8)]  # a log: its writer died mid-line
    with pytest.raises(RecordError, match="<lines>:2: a record cut short"):
        load_records(lines, allow_torn=False)


def test_a_binary_file_is_refused_naming_its_first_bad_line(tmp_path: Path) -> None:
    """A file that is not text (a model given as --records by mistake) is a RecordError
    naming the file and the line, not a decoding traceback; nothing is appended to it."""
    path = tmp_path / "model.onnx"
    path.write_bytes(_record().dumps().encode() + b"\n\x08\x07\xad\xff\x12\n{}\n")
    with pytest.raises(RecordError, match="not UTF-8 text") as info:
        load_records(path)
    assert f"{path}:2:" in str(info.value)
    before = path.read_bytes()
    with pytest.raises(RecordError):
        RecordLog(path).load()
    assert path.read_bytes() == before


def test_a_last_line_cut_inside_a_character_is_torn(tmp_path: Path) -> None:
    """A writer that dies inside a multi-byte character leaves a torn line, skipped as
    any other (records are ASCII today; an error text of a later version need not be)."""
    path = tmp_path / "run.jsonl"
    whole = _record(4).dumps().encode() + b"\n"
    cut = b'{"error":"caf\xc3'
    path.write_bytes(whole + cut)
    assert load_records(path) == [_record(4)]


def test_tuned_record_ignores_failures_and_other_workloads() -> None:
    records = [
        _record(2, costs=[5e-3, 5e-3, 5e-3]),
        _record(4, costs=[1e-3, 9.0, 1e-3]),  # one slow outlier: the median is 1e-3
        _record(8, costs=[1e-4], status="wrong_result", error="differs"),
        _record(16, costs=[], status="build_error"),
        _record(32, costs=[1e-5], workload_key=OTHER_KEY),
        _record(64, costs=[1e-5], target="llvm -mcpu=znver4 -num-cores=2"),
        _record(128, costs=[2e-3, 2e-3]),
    ]
    assert tuned_record(records, KEY, TARGET) == records[1]
    assert tuned_record(records, OTHER_KEY, TARGET) == records[4]
    assert tuned_record(records[2:4], KEY, TARGET) is None
    assert tuned_record([], KEY, TARGET) is None
    # A cold-cache record decides over any warm one, however fast.
    cold = _record(256, costs=[8e-3], timing="cold")
    assert tuned_record([*records, cold], KEY, TARGET) == cold


def test_measured_candidates_include_failures() -> None:
    records = [_record(2), _record(8, status="worker_lost", costs=[]), _record(4, target="x")]
    assert measured_candidates(records, KEY, TARGET) == {
        records[0].candidate_id,
        records[1].candidate_id,
    }
